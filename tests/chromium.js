// chromium.js: headless Chromium driven over the DevTools protocol (--remote-debugging-pipe,
// no npm module needed), for the tests that check what a page shows: tests/flame/browser.js
// (tr-flame's SVG), tests/tr-export/speedscope.js (exports in speedscope's web app).
//     const { once, page, finish } = require("../chromium.js")();
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");

module.exports = function launch() {
    const chromium = process.env.CHROMIUM || "/usr/bin/chromium";
    // a fresh profile in the current (temporary) directory of the test case
    const profile = fs.mkdtempSync(path.resolve("chromium-profile-"));
    const child = spawn(chromium, [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--no-first-run", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank",
    ], { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"] });
    const toBrowser = child.stdio[3], fromBrowser = child.stdio[4];

    let nextId = 1, buffered = "";
    const waiting = new Map(), listeners = [];
    fromBrowser.on("data", (chunk) => {
        buffered += chunk.toString("utf8");
        let nul;
        while ((nul = buffered.indexOf("\0")) >= 0) {
            const msg = JSON.parse(buffered.slice(0, nul));
            buffered = buffered.slice(nul + 1);
            if (msg.id && waiting.has(msg.id)) {
                const { resolve, reject } = waiting.get(msg.id);
                waiting.delete(msg.id);
                if (msg.error) reject(new Error(JSON.stringify(msg.error))); else resolve(msg.result);
            } else if (msg.method) {
                for (const l of listeners.slice()) l(msg);
            }
        }
    });
    function send(method, params = {}, sessionId) {
        const id = nextId++;
        const msg = { id, method, params };
        if (sessionId) msg.sessionId = sessionId;
        toBrowser.write(JSON.stringify(msg) + "\0");
        return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
    }
    function once(method, sessionId) {
        return new Promise((resolve) => {
            const l = (msg) => {
                if (msg.method === method && (!sessionId || msg.sessionId === sessionId)) {
                    listeners.splice(listeners.indexOf(l), 1);
                    resolve(msg.params);
                }
            };
            listeners.push(l);
        });
    }
    function finish(code) {
        // close the browser the polite way (its helper processes go with it), then insist
        child.on("exit", () => process.exit(code));
        send("Browser.close").catch(() => {});
        setTimeout(() => { try { child.kill("SIGKILL"); } catch (e) { /* gone */ } }, 3000);
        setTimeout(() => process.exit(code), 5000);
    }
    // A new page of width x height: { s (a command to it), sessionId, evaluate (an expression's
    // value) }; its script errors (exceptions, console.error) are pushed onto errors.
    async function page(width, height, errors) {
        const { targetId } = await send("Target.createTarget", { url: "about:blank" });
        const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
        const s = (m, p) => send(m, p, sessionId);
        listeners.push((msg) => {
            if (msg.sessionId !== sessionId) return;
            if (msg.method === "Runtime.exceptionThrown")
                errors.push(msg.params.exceptionDetails.exception ?
                    msg.params.exceptionDetails.exception.description : msg.params.exceptionDetails.text);
            if (msg.method === "Runtime.consoleAPICalled" && msg.params.type === "error")
                errors.push(msg.params.args.map((a) => a.value).join(" "));
        });
        await s("Runtime.enable");
        await s("Page.enable");
        await s("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 1, mobile: false });
        const evaluate = async (expr) => {
            const r = await s("Runtime.evaluate", { expression: expr, returnByValue: true });
            if (r.exceptionDetails) throw new Error(expr + ": " + JSON.stringify(r.exceptionDetails));
            return r.result.value;
        };
        return { s, sessionId, evaluate };
    }
    return { send, once, listeners, page, finish };
};
