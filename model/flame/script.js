"use strict";
// tr-flame's viewer.  Frames are the children of #frames in document order;
// frame i's data-n following frames are its descendants, data-s and data-w
// its start and width in samples: zoom and search work on those numbers.
var F = [], zoomed = -1, term = null, ignorecase = false;
var details, unzoomBtn, searchBtn, icBtn, matchedTxt, framesEl;

function init(evt) {
	details = document.getElementById("details").firstChild;
	unzoomBtn = document.getElementById("unzoom");
	searchBtn = document.getElementById("search");
	icBtn = document.getElementById("ignorecase");
	matchedTxt = document.getElementById("matched");
	framesEl = document.getElementById("frames");
	var gs = framesEl.children;
	for (var i = 0; i < gs.length; i++) {
		var g = gs[i], r = g.querySelector("rect"), t = g.querySelector("text");
		var title = g.querySelector("title").textContent, cut = title.lastIndexOf(" (");
		g.trIndex = i;
		F.push({g: g, r: r, t: t, title: title, name: cut < 0 ? title : title.substring(0, cut),
			s: +g.getAttribute("data-s"), w: +g.getAttribute("data-w"), n: +g.getAttribute("data-n"),
			x0: r.getAttribute("x"), w0: r.getAttribute("width"), fill: r.getAttribute("fill"),
			label0: t ? t.textContent : "", tx0: t ? t.getAttribute("x") : null});
	}
	var p = getParams();
	if (p.i === "1") setIgnorecase(true);
	if (p.z !== undefined && F[+p.z]) zoom(+p.z);
	if (p.s) search(p.s);
}

function frameOf(node) {
	while (node && node.parentNode !== framesEl) node = node.parentNode;
	return node && node.trIndex !== undefined ? node.trIndex : -1;
}

window.addEventListener("click", function (e) {
	var i = frameOf(e.target);
	if (i >= 0) {
		e.preventDefault();
		if (i === 0) unzoom(); else zoom(i);
		return;
	}
	var id = e.target.id;
	if (id === "unzoom") unzoom();
	else if (id === "search") { if (term !== null) resetSearch(); else searchPrompt(); }
	else if (id === "ignorecase") setIgnorecase(!ignorecase);
}, false);
window.addEventListener("mouseover", function (e) {
	var i = frameOf(e.target);
	if (i >= 0) details.nodeValue = cfg.nametype + " " + F[i].title;
}, false);
window.addEventListener("mouseout", function (e) {
	if (frameOf(e.target) >= 0) details.nodeValue = " ";
}, false);
window.addEventListener("keydown", function (e) {
	if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) { e.preventDefault(); searchPrompt(); }
	else if (e.ctrlKey && e.keyCode === 73) { e.preventDefault(); setIgnorecase(!ignorecase); }
	else if (e.keyCode === 27) unzoom();
}, false);

// URL state: z (zoomed frame), s (search), i (ignore case)
function getParams() {
	var p = {}, a = window.location.search.substring(1).split("&");
	for (var i = 0; i < a.length; i++) {
		var eq = a[i].indexOf("=");
		if (eq > 0) p[a[i].substring(0, eq)] = decodeURIComponent(a[i].substring(eq + 1));
	}
	return p;
}
function setParam(k, v) {
	var p = getParams(), q = [];
	if (v === null) delete p[k]; else p[k] = String(v);
	for (var key in p) q.push(key + "=" + encodeURIComponent(p[key]));
	try {
		history.replaceState(null, "", q.length ? "?" + q.join("&") : window.location.pathname);
	} catch (err) { /* some viewers do not allow it */ }
}

function label(f, x, w) {
	var chars = Math.floor(w / (cfg.fontsize * cfg.fontwidth)), txt = "";
	if (chars >= 3) {
		var name = f.g === F[0].g ? "all" : f.name;
		var cps = Array.from(name.replace(/_\[[kwij]\]$/, ""));
		txt = cps.length > chars ? cps.slice(0, chars - 2).join("") + ".." : cps.join("");
	}
	if (!f.t) {
		if (!txt) return;
		f.t = document.createElementNS("http://www.w3.org/2000/svg", "text");
		f.t.setAttribute("y", +f.r.getAttribute("y") + +f.r.getAttribute("height") / 2 + 3);
		f.g.appendChild(f.t);
	}
	f.t.setAttribute("x", (x + 3).toFixed(2));
	f.t.textContent = txt;
}
function place(f, x, w) {
	f.r.setAttribute("x", x.toFixed(1));
	f.r.setAttribute("width", w.toFixed(1));
	label(f, x, w);
}
function restore(f) {
	f.g.classList.remove("hide");
	f.g.classList.remove("parent");
	f.r.setAttribute("x", f.x0);
	f.r.setAttribute("width", f.w0);
	if (f.t) {
		f.t.textContent = f.label0;
		f.t.setAttribute("x", f.tx0 !== null ? f.tx0 : (+f.x0 + 3).toFixed(2));
	}
}

function zoom(k) {
	if (k <= 0) { unzoom(); return; }
	var z = F[k], W = cfg.width - 2 * cfg.xpad;
	for (var i = 0; i < F.length; i++) {
		var f = F[i];
		if (i >= k && i <= k + z.n) {
			f.g.classList.remove("hide");
			f.g.classList.remove("parent");
			place(f, cfg.xpad + (f.s - z.s) * W / z.w, f.w * W / z.w);
		} else if (i < k && k <= i + f.n) {
			f.g.classList.remove("hide");
			f.g.classList.add("parent");
			place(f, cfg.xpad, W);
		} else {
			f.g.classList.add("hide");
		}
	}
	zoomed = k;
	unzoomBtn.classList.remove("hide");
	setParam("z", k);
	if (term !== null) search(term);
}
function unzoom() {
	for (var i = 0; i < F.length; i++) restore(F[i]);
	zoomed = -1;
	unzoomBtn.classList.add("hide");
	setParam("z", null);
	if (term !== null) search(term);
}

function searchPrompt() {
	var t = prompt("Search for a regular expression" + (ignorecase ? ", ignoring case" : "") +
		" (Ctrl-I toggles case)", term !== null ? term : "");
	if (t) search(t);
}
function setIgnorecase(on) {
	ignorecase = on;
	if (on) icBtn.classList.add("show"); else icBtn.classList.remove("show");
	setParam("i", on ? "1" : null);
	if (term !== null) search(term);
}
function resetSearch() {
	for (var i = 0; i < F.length; i++) F[i].r.setAttribute("fill", F[i].fill);
	term = null;
	searchBtn.classList.remove("show");
	searchBtn.firstChild.nodeValue = "Search";
	matchedTxt.classList.add("hide");
	matchedTxt.firstChild.nodeValue = " ";
	setParam("s", null);
}
// Highlight matching frames; the matched share counts the visible frames
// only (the zoomed frame and its descendants), each sample once.
function search(t) {
	var re;
	try { re = new RegExp(t, ignorecase ? "i" : ""); }
	catch (err) {
		matchedTxt.classList.remove("hide");
		matchedTxt.firstChild.nodeValue = "invalid regular expression";
		return null;
	}
	term = t;
	var lo = zoomed > 0 ? zoomed : 0, hi = lo + F[lo].n, sum = 0, end = -1;
	for (var i = 0; i < F.length; i++) {
		var f = F[i], m = i > 0 && re.test(f.name);
		f.r.setAttribute("fill", m ? cfg.searchcolor : f.fill);
		if (m && i >= lo && i <= hi && i > end) { sum += f.w; end = i + f.n; }
	}
	var pct = F[lo].w > 0 ? 100 * sum / F[lo].w : 0;
	var txt = pct === 100 ? "100" : pct.toFixed(1);
	searchBtn.classList.add("show");
	searchBtn.firstChild.nodeValue = "Reset Search";
	matchedTxt.classList.remove("hide");
	matchedTxt.firstChild.nodeValue = "Matched: " + txt + "%";
	setParam("s", t);
	return pct;
}
