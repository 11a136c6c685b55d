"use strict";
// The viewer shell shared by every game: controls (step, play, pause, speed, slider, keyboard, #turn=N),
// the players panel (names, faults, stderr), the final result, each position's stderr and the
// per-position I/O panel.
// Each game registers a renderer with Arena.register(ids, factory); factory(record, ui) returns
// { count, label(i), draw(i), steps(i)?, position(stepIndex)? } where i is a 0-based position.

const Arena = (() => {
  const renderers = {};
  const SVG = "http://www.w3.org/2000/svg";

  function register(ids, factory) {
    for (const id of ids) renderers[id] = factory;
  }

  // el("div", {class: "x", onclick: f}, child, "text", ...): children may be nodes, strings or arrays.
  function build(node, attrs, children) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const el = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);
  const svg = (tag, attrs, ...children) => build(document.createElementNS(SVG, tag), attrs, children);
  // replaceChildren with el()'s rules: arrays flattened, null/false skipped (the DOM would print them).
  const put = (node, ...children) => {
    node.replaceChildren();
    return build(node, {}, children);
  };

  // Scores are exact: integers or "n/d" strings, shown as written.
  const scoreText = (s) => (s === undefined || s === null ? "–" : String(s));
  function scoreValue(s) {
    if (typeof s === "number") return s;
    const [n, d] = String(s).split("/");
    return d === undefined ? Number(n) : Number(n) / Number(d);
  }

  const COLORS = ["#d64545", "#2f6fdb", "#2f9e55", "#e39a26"];

  function start() {
    const dataNode = document.getElementById("replay");
    const record = JSON.parse(dataNode.textContent);
    const factory = renderers[record.game];
    const players = record.players || [];
    const names = players.map((p, i) => p.name || "player " + i);
    document.title = record.game + " · " + names.join(" vs ");
    document.getElementById("title").textContent = record.game;
    const configText = typeof record.config === "string" ? record.config : "";
    document.getElementById("subtitle").textContent =
      "seed " + record.seed + (configText ? " · " + configText : "") + " · " + names.join(" vs ");

    const controls = document.getElementById("controls");
    const toggles = el("span", { class: "toggles" });
    const ui = { el, svg, put, names, colors: COLORS, scoreText, scoreValue, toggle, redraw: () => show(pos) };
    const view = factory(record, ui);
    const count = Math.max(1, view.count);

    // Toggles are options of a renderer (visible/real, hidden cards); they redraw the current position.
    function toggle(label, initial, key) {
      const box = el("input", { type: "checkbox", id: "toggle-" + key });
      box.checked = initial;
      const state = { get on() { return box.checked; } };
      box.addEventListener("change", () => { show(pos); box.blur(); });
      toggles.append(el("label", { class: "toggle", for: "toggle-" + key }, box, " " + label));
      return state;
    }
    if (view.init) view.init();

    let pos = 0;
    let timer = null;
    const speeds = [0.25, 0.5, 1, 2, 4, 8];
    let speed = 1;

    const button = (text, title, action) =>
      el("button", { type: "button", title, onclick: () => { action(); } }, text);
    const first = button("|◀", "First (Home)", () => go(0));
    const prev = button("◀", "Step back (←)", () => go(pos - 1));
    const play = button("play", "Play / pause (space)", () => (timer ? stop() : run()));
    const next = button("▶", "Step forward (→)", () => go(pos + 1));
    const last = button("▶|", "Last (End)", () => go(count - 1));
    play.id = "play";
    next.id = "next";
    const slider = el("input", { type: "range", min: 0, max: count - 1, value: 0, id: "slider", "aria-label": "position" });
    slider.addEventListener("input", () => go(Number(slider.value)));
    const label = el("span", { id: "position" });
    const speedSelect = el("select", { id: "speed", title: "Speed" },
      speeds.map((s) => el("option", { value: s, selected: s === speed }, s + "×")));
    speedSelect.addEventListener("change", () => {
      speed = Number(speedSelect.value);
      if (timer) { stop(); run(); }
      speedSelect.blur();
    });
    const link = el("a", { id: "permalink", href: "#turn=1", title: "Link to this position" }, "link");
    controls.append(first, prev, play, next, last, slider, label, el("span", { class: "speed" }, "speed ", speedSelect), toggles, link,
      el("span", { class: "keys" }, "← → step · space play · Home/End"));

    function run() {
      if (pos >= count - 1) go(0);
      play.textContent = "pause";
      timer = setInterval(() => {
        if (pos >= count - 1) stop();
        else go(pos + 1);
      }, 700 / speed);
    }
    function stop() {
      clearInterval(timer);
      timer = null;
      play.textContent = "play";
    }
    function go(i) {
      const target = Math.max(0, Math.min(count - 1, i | 0));
      show(target);
      history.replaceState(null, "", "#turn=" + (target + 1));
    }

    const finalBox = document.getElementById("final");
    function showFinal(visible) {
      finalBox.hidden = !visible;
      if (!visible || finalBox.childElementCount) return;
      const outcome = record.outcome || {};
      const scores = outcome.scores || [];
      const winner = outcome.winner;
      build(finalBox, {},
        [el("span", { class: "final-title" }, winner === null || winner === undefined ? "Final: no winner" : "Final: " + names[winner] + " wins"),
        names.map((name, p) =>
          el("span", { class: "final-seat" + (p === winner ? " winner" : ""), "data-player": p },
            el("i", { class: "dot", style: "background:" + COLORS[p % COLORS.length] }),
            name + " ",
            el("b", { "data-final-score": p }, scoreText(scores[p])),
            outcome.ranks ? el("span", { class: "rank" }, " #" + outcome.ranks[p]) : null))]);
    }

    function show(i) {
      pos = i;
      slider.value = i;
      label.textContent = view.label(i) + "  (" + (i + 1) + "/" + count + ")";
      link.href = "#turn=" + (i + 1);
      view.draw(i);
      showFinal(i === count - 1);
      drawIo(i);
    }

    // What each bot was sent and answered at this position (process bots have texts; built-in ones an action).
    const io = document.getElementById("io");
    // (A page without the box, an older exported one, simply shows none.)
    const stepStderr = document.getElementById("step-stderr") || el("div");
    let ioOpen = false;
    function drawIo(i) {
      io.replaceChildren();
      stepStderr.replaceChildren();
      const indices = view.steps ? view.steps(i) : [];
      if (!indices.length) return;
      // What each bot wrote to stderr for its answers at this position, shown open beside the board
      // (a bot's own debug text, as CodinGame shows it per frame).
      const written = indices.map((k) => record.steps[k]).filter((step) => step && step.stderr);
      if (written.length) {
        stepStderr.append(el("h3", {}, "stderr at this position"), ...written.map((step) => el("div", { class: "step-stderr-bot" },
          el("div", { class: "io-head" }, el("i", { class: "dot", style: "background:" + COLORS[step.player % COLORS.length] }),
            (names[step.player] || "player " + step.player) + " · stderr"),
          el("pre", {}, step.stderr))));
      }
      // Closed by default (it shows secret moves); stays open while stepping once opened.
      const box = el("details", { open: ioOpen }, el("summary", {}, "Bots' input and output at this position (" + indices.length + ")"));
      box.addEventListener("toggle", () => { ioOpen = box.open; });
      io.append(box);
      for (const k of indices) {
        const step = record.steps[k];
        if (!step) continue;
        const head = el("div", { class: "io-head" },
          el("i", { class: "dot", style: "background:" + COLORS[step.player % COLORS.length] }),
          names[step.player] || "player " + step.player,
          step.elapsed_us ? el("span", { class: "muted" }, " · " + (step.elapsed_us / 1000).toFixed(1) + " ms") : null,
          step.fault ? el("span", { class: "fault" }, " · " + step.fault.kind + ": " + step.fault.detail) : null);
        const body = el("div", { class: "io-body" });
        // A game may show its own I/O (Coup: the call's arguments, what it appended, its stdout).
        const shown = view.io ? view.io(step) : null;
        if (shown) {
          body.append(...shown);
        } else {
          if (step.input !== undefined) body.append(el("details", {}, el("summary", {}, "input"), el("pre", {}, step.input)));
          if (step.output !== undefined) body.append(el("div", {}, "output ", el("code", {}, JSON.stringify(step.output))));
          else if (step.action !== undefined) body.append(el("div", {}, "action ", el("code", {}, JSON.stringify(step.action))));
        }
        box.append(el("div", { class: "io-step" }, head, body));
      }
    }

    // Players: spec, faults with a link to where they happened, stderr excerpt.
    const panel = document.getElementById("players");
    panel.append(el("h2", {}, "Players"));
    players.forEach((p, index) => {
      const faults = (p.faults || []).map((f) => {
        const at = f.step === null || f.step === undefined || !view.position ? null : view.position(f.step);
        return el("li", { class: "fault" }, f.fault.kind + ": " + f.fault.detail,
          at === null ? " (before the game)" : el("a", { href: "#turn=" + (at + 1) }, " → " + view.label(at)));
      });
      const stderr = p.stderr || "";
      // With stderr per answer (at each position), the player's own text is what came after its last answer.
      const perAnswer = record.steps.some((step) => step.player === index && step.stderr);
      const limit = 4000;
      panel.append(el("div", { class: "player-card" },
        el("div", { class: "player-name" }, el("i", { class: "dot", style: "background:" + COLORS[index % COLORS.length] }), names[index]),
        el("div", { class: "muted" }, p.spec || ""),
        el("div", { class: "muted" }, (p.answers || 0) + " answers" +
          (p.max_answer_us ? " · slowest " + (p.max_answer_us / 1000).toFixed(1) + " ms" : "") +
          (p.exit_status ? " · " + p.exit_status : "")),
        faults.length ? el("ul", { class: "faults" }, faults) : null,
        stderr ? el("details", { class: "stderr" }, el("summary", {}, (perAnswer ? "stderr after its last answer (" : "stderr (") + stderr.length + " bytes" +
          (p.stderr_dropped ? ", " + p.stderr_dropped + " dropped" : "") + ")"),
          el("pre", {}, stderr.length > limit ? stderr.slice(0, limit) + "\n…" : stderr)) : null));
    });

    document.addEventListener("keydown", (event) => {
      if (event.target instanceof HTMLInputElement && event.target.type !== "range" && event.target.type !== "checkbox") return;
      if (event.target instanceof HTMLSelectElement) return;
      const keys = {
        ArrowRight: () => go(pos + 1),
        ArrowLeft: () => go(pos - 1),
        Home: () => go(0),
        End: () => go(count - 1),
        " ": () => (timer ? stop() : run()),
      };
      const action = keys[event.key];
      if (action) {
        event.preventDefault();
        if (event.key !== " ") stop();
        action();
      }
    });

    function fromHash() {
      const match = /turn=(\d+)/.exec(location.hash);
      return match ? Number(match[1]) - 1 : 0;
    }
    window.addEventListener("hashchange", () => show(Math.max(0, Math.min(count - 1, fromHash()))));
    show(Math.max(0, Math.min(count - 1, fromHash())));

    // For tests and the console: the current position and a way to move.
    window.arenaViewer = { count, position: () => pos, go };
  }

  function fail(error) {
    const stage = document.getElementById("stage");
    if (stage) put(stage, el("p", { class: "error" }, "Cannot show this replay: " + error.message));
    throw error;
  }

  return { register, el, svg, put, COLORS, start: () => { try { start(); } catch (e) { fail(e); } } };
})();
