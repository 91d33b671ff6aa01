// browser.js PAGE PNG: open a tr-triage HTML report in headless Chromium (tests/chromium.js) as a
// person would, screenshot it into PNG, and print what the page shows: its sections, whether each
// finding links to evidence on the page, the flame graphs (frames drawn inside each embedded SVG),
// and the script errors of the page and its frames.  Used by tests/triage/cases/browser.
"use strict";
const fs = require("fs");
const path = require("path");

const html = path.resolve(process.argv[2]);
const png = process.argv[3];
const { once, page, finish } = require("../chromium.js")();

const errors = [];
async function main() {
    const timer = setTimeout(() => { console.log("FAIL: timeout"); finish(1); }, 60000);
    const { s, sessionId, evaluate } = await page(1300, 900, errors);
    const loaded = once("Page.loadEventFired", sessionId);
    await s("Page.navigate", { url: "file://" + html });
    await loaded; // after the iframes' documents too

    const ids = await evaluate(`Array.from(document.querySelectorAll("section[id]")).map((e) => e.id).join(" ")`);
    console.log("sections: " + ids);
    const findings = await evaluate(`Array.from(document.querySelectorAll("#findings li a")).map((a) =>
        (document.getElementById(a.getAttribute("href").slice(1)) ? "linked: " : "NOT LINKED: ") + a.textContent)`);
    for (const f of findings) console.log("finding " + f);

    // each flame graph is an SVG document of its own in an iframe: count the frames it drew
    const tree = await s("Page.getFrameTree");
    const kids = (tree.frameTree.childFrames || []).map((c) => c.frame);
    for (const id of ["cpu-flame", "offcpu-flame"]) {
        const name = await evaluate(`(function () { var f = document.getElementById(${JSON.stringify(id)});
            return f ? f.tagName + " " + f.getAttribute("src").slice(0, 26) : "missing"; })()`);
        const idx = await evaluate(`Array.from(document.querySelectorAll("iframe")).indexOf(document.getElementById(${JSON.stringify(id)}))`);
        let frames = "no document";
        if (idx >= 0 && kids[idx]) {
            const { executionContextId } = await s("Page.createIsolatedWorld", { frameId: kids[idx].id });
            const r = await s("Runtime.evaluate", { contextId: executionContextId, returnByValue: true,
                expression: `document.documentElement.tagName + " with " + document.querySelectorAll("#frames > g").length + " frames, title " + document.querySelector("#title, text").textContent` });
            frames = r.result.value;
        }
        console.log(id + ": " + name + ": " + frames);
    }
    // the whole page in the viewport (frames outside it are not painted), then two animation
    // frames for them to paint
    const height = await evaluate("document.documentElement.scrollHeight");
    await s("Emulation.setDeviceMetricsOverride", { width: 1300, height, deviceScaleFactor: 1, mobile: false });
    await evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(1))))");
    const shot = await s("Page.captureScreenshot", { format: "png" });
    fs.writeFileSync(png, Buffer.from(shot.data, "base64"));
    console.log(errors.length ? "script errors: " + errors.join("; ") : "no script errors");
    clearTimeout(timer);
    finish(0);
}
main().catch((e) => { console.log("FAIL: " + e.message); finish(1); });
