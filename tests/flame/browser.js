// browser.js SVG URL-QUERY... : open a tr-flame SVG in headless Chromium (tests/chromium.js),
// click and search in it, and print what the page shows.  Used by tests/flame/cases/browser.
"use strict";
const path = require("path");

const svg = path.resolve(process.argv[2]);
const { once, page, finish } = require("../chromium.js")();

const errors = [];
async function main() {
    const timer = setTimeout(() => { console.log("FAIL: timeout"); finish(1); }, 60000);
    const { s, sessionId, evaluate } = await page(1300, 900, errors);
    const load = async (query) => {
        const loaded = once("Page.loadEventFired", sessionId);
        await s("Page.navigate", { url: "file://" + svg + (query || "") });
        await loaded;
    };
    const frameIndex = (name) => evaluate(`F.findIndex(function (f) { return f.name === ${JSON.stringify(name)}; })`);
    const click = async (x, y) => {
        for (const type of ["mouseMoved", "mousePressed", "mouseReleased"])
            await s("Input.dispatchMouseEvent", { type, x, y, button: "left", clickCount: 1 });
    };
    const matched = () => evaluate(`document.getElementById("matched").textContent`);

    await load("");
    console.log("loaded: " + (await evaluate("F.length")) + " frames, " +
        (errors.length ? "script errors: " + errors.join("; ") : "no script errors"));

    // hover shows the title
    const mid = await frameIndex("mid");
    const box = await evaluate(`(function () { var b = F[${mid}].r.getBoundingClientRect();
        return [b.left + b.width / 2, b.top + b.height / 2]; })()`);
    await s("Input.dispatchMouseEvent", { type: "mouseMoved", x: box[0], y: box[1] });
    console.log("hover: " + (await evaluate(`document.getElementById("details").textContent`)));

    // a real click on "mid" zooms: it fills the width, its children are scaled exactly
    await click(box[0], box[1]);
    console.log("click mid: width " + (await evaluate(`F[${mid}].r.getAttribute("width")`)) +
        ", leaf_a width " + (await evaluate(`F[${await frameIndex("leaf_a")}].r.getAttribute("width")`)) +
        ", other hidden " + (await evaluate(`F[${await frameIndex("other")}].g.classList.contains("hide")`)) +
        ", main faded " + (await evaluate(`F[${await frameIndex("main")}].g.classList.contains("parent")`)) +
        ", url " + (await evaluate("location.search")));

    // search counts visible samples only, each once
    console.log("search leaf_b zoomed: " + (await evaluate(`search("leaf_b"), document.getElementById("matched").textContent`)));
    await evaluate("unzoom()");
    console.log("search leaf_b: " + (await evaluate(`search("leaf_b"), document.getElementById("matched").textContent`)));
    console.log("search ^(mid|leaf): " + (await evaluate(`search("^(mid|leaf)"), document.getElementById("matched").textContent`)));
    console.log("search LEAF_A: " + (await evaluate(`search("LEAF_A"), document.getElementById("matched").textContent`)));
    await evaluate(`setIgnorecase(true)`);
    console.log("ignore case LEAF_A: " + (await matched()) + ", url " + (await evaluate("location.search")));
    console.log("bad regex: " + (await evaluate(`search("("), document.getElementById("matched").textContent`)));

    // the state in the URL is restored on load
    await load(`?z=${mid}&s=leaf_a`);
    console.log("reload ?z&s: " + (await matched()) + ", mid width " + (await evaluate(`F[${mid}].r.getAttribute("width")`)));
    // a click on the root unzooms
    const root = await evaluate(`(function () { var b = F[0].r.getBoundingClientRect();
        return [b.left + 5, b.top + b.height / 2]; })()`);
    await click(root[0], root[1]);
    console.log("click all: mid width " + (await evaluate(`F[${mid}].r.getAttribute("width")`)) +
        ", reset zoom hidden " + (await evaluate(`document.getElementById("unzoom").classList.contains("hide")`)));
    console.log(errors.length ? "script errors: " + errors.join("; ") : "no script errors at the end");
    clearTimeout(timer);
    finish(0);
}
main().catch((e) => { console.log("FAIL: " + e.message); finish(1); });
