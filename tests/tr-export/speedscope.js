// speedscope.js APPDIR FILE: open FILE in speedscope's web app (APPDIR: its npm package's
// dist/release), served on localhost, in headless Chromium (tests/chromium.js), and print what
// the page shows: each profile's name, the profile list and the frames of the Sandwich view
// with their totals.  Used by tests/tr-export/cases/speedscope-browser and chrome-browser.
"use strict";
const fs = require("fs");
const http = require("http");
const path = require("path");
const app = path.resolve(process.argv[2]), file = path.resolve(process.argv[3]);
const { once, page, finish: close } = require("../chromium.js")();

const errors = [];
const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json",
    ".wasm": "application/wasm", ".png": "image/png", ".woff2": "font/woff2" };
// the app and the profile, on localhost only
const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url.split("?")[0].split("#")[0]);
    const p = url === "/profile.json" ? file : path.join(app, path.normalize(url === "/" ? "/index.html" : url));
    fs.readFile(p, (err, data) => {
        if (err) { res.writeHead(404); res.end(); return; }
        res.writeHead(200, { "Content-Type": types[path.extname(p)] || "application/octet-stream" });
        res.end(data);
    });
});
async function main() {
    const timer = setTimeout(() => { console.log("FAIL: timeout"); finish(1); }, 90000);
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = "http://127.0.0.1:" + server.address().port;
    const { s, sessionId, evaluate } = await page(1600, 4000, errors);
    const text = () => evaluate("document.body.innerText");
    const until = async (what, pred) => {
        for (let i = 0; i < 300; i++) {
            const t = await text();
            if (pred(t)) return t;
            await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error("the page never showed " + what + ": " + JSON.stringify(await text()));
    };
    const loaded = once("Page.loadEventFired", sessionId);
    await s("Page.navigate", { url: base + "/#profileURL=" + encodeURIComponent(base + "/profile.json") });
    await loaded;
    await until("the profile", (t) => /Sandwich/.test(t) && !/Loading/.test(t));
    // the toolbar: the views, the profile's name ("NAME (i/n)" when there are several), the buttons
    const title = (t) => t.split("\n")[1];
    let t = await text();
    console.log("profile: " + title(t));
    // the Sandwich view's table: one row per frame, with its total and self weight
    await evaluate(`[...document.querySelectorAll("div")].find((d) => d.textContent === "🥪Sandwich").click()`);
    t = await until("the sandwich table", (t) => /Symbol Name/.test(t));
    // the tables' rows, cell by cell, without the percentages
    const rows = () => evaluate(`[...document.querySelectorAll("tr")].map((r) => [...r.cells].map((c) =>
        c.innerText.replace(/\\s*\\([<>\\d.]+%\\)\\s*$/, "").trim()).join(" | "))`);
    // the table renders its rows after its header: wait until there are rows, the same twice
    const settled = async () => {
        let last = "";
        for (let i = 0; i < 300; i++) {
            const r = await rows(), key = JSON.stringify(r);
            if (r.length > 1 && key === last) return r;
            last = key;
            await new Promise((res) => setTimeout(res, 100));
        }
        throw new Error("the sandwich table never settled: " + last);
    };
    const show = async () => { for (const r of await settled()) console.log("  " + r); };
    await show();
    // every profile, with n (next profile)
    const several = / \((\d+)\/(\d+)\)$/.exec(title(t)), n = several ? Number(several[2]) : 1;
    for (let i = 1; i < n; i++) {
        for (const type of ["keyDown", "keyUp"])
            await s("Input.dispatchKeyEvent", { type, key: "n", text: type === "keyDown" ? "n" : undefined, code: "KeyN", windowsVirtualKeyCode: 78 });
        t = await until("profile " + (i + 1), (t) => (title(t) || "").endsWith("(" + (i + 1) + "/" + n + ")"));
        console.log("profile: " + title(t));
        await show();
    }
    console.log(errors.length ? "script errors: " + errors.join("; ") : "no script errors");
    clearTimeout(timer);
    finish(0);
}
function finish(code) {
    server.close();
    close(code);
}
main().catch((e) => { console.log("FAIL: " + e.message); finish(1); });
