"use strict";
// Spring Challenge 2021: one position per referee frame (gathering, actions, sun move). The board is the
// official spiral of 37 cells (§1.2 of the reference): index 0 in the centre, ring r starting East and
// running counter-clockwise on screen; pointy-top hexes with q = x, r = z.

Arena.register(["spring2021"], (record, ui) => {
  const { el, svg, names } = ui;
  const frames = record.frames;
  const COLORS = ["#d64545", "#2f6fdb"];
  const DIRS = [[1, -1, 0], [1, 0, -1], [0, 1, -1], [-1, 1, 0], [-1, 0, 1], [0, -1, 1]];
  const R = 38;
  const cells = [];
  cells.push([0, 0, 0]);
  for (let ring = 1; ring <= 3; ring++) {
    let c = DIRS[0].map((d) => d * ring);
    for (let side = 0; side < 6; side++) {
      for (let k = 0; k < ring; k++) {
        cells.push(c);
        const d = DIRS[(side + 2) % 6];
        c = [c[0] + d[0], c[1] + d[1], c[2] + d[2]];
      }
    }
  }
  const centre = (i) => {
    const [x, , z] = cells[i];
    return [R * (Math.sqrt(3) * x + (Math.sqrt(3) / 2) * z), 1.5 * R * z];
  };
  const hexPoints = (cx, cy, r) =>
    [0, 1, 2, 3, 4, 5].map((k) => {
      const a = (Math.PI / 180) * (60 * k - 30);
      return (cx + r * Math.cos(a)).toFixed(1) + "," + (cy + r * Math.sin(a)).toFixed(1);
    }).join(" ");
  const RICH = ["#5b5f66", "#d8c98f", "#a5cf6b", "#5fa845"];
  const RICH_NAME = ["hole", "poor", "ok", "lush"];
  const PHASE = { gathering: "Gathering sun", actions: "Taking actions", sun_move: "Sun is moving" };
  const TREE_R = [5, 9, 13, 17];

  // Steps asked in frame i: the frame counts executions so far.
  const stepsOf = (i) => {
    const from = i === 0 ? 0 : frames[i - 1].executions;
    const to = frames[i].executions;
    const out = [];
    for (let k = from; k < to && k < record.steps.length; k++) out.push(k);
    return out;
  };

  const stage = document.getElementById("stage");
  const side = document.getElementById("side");
  // Ring 3 reaches 3.5·√3·R from the centre; the sun circles outside it.
  const size = 2 * (3.5 * Math.sqrt(3) * R + 48);

  function parseAction(text) {
    const parts = (text || "").trim().split(/\s+/);
    return { verb: (parts[0] || "").toUpperCase(), args: parts.slice(1).map(Number) };
  }

  function board(frame) {
    const shadow = new Map(frame.shadows.map(([cell, s]) => [cell, s]));
    const half = size / 2;
    // Rows span 4.5·R above and below the centre; the sun never goes higher than sin 60° of its circle.
    const halfHeight = Math.max(4.5 * R + 24, (half - 18) * Math.sin(Math.PI / 3) + 18);
    const root = svg("svg", { class: "hexboard", viewBox: (-half) + " " + (-halfHeight) + " " + size + " " + 2 * halfHeight, width: size, height: 2 * halfHeight });
    // The sun sits opposite the side shadows fall to; its arrow points the way shadows are cast.
    const dir = frame.sun_direction;
    const angle = -60 * dir;
    const dx = Math.cos((angle * Math.PI) / 180);
    const dy = Math.sin((angle * Math.PI) / 180);
    const sunDist = half - 18;
    const sx = -dx * sunDist;
    const sy = -dy * sunDist;
    root.append(svg("g", { class: "sun" },
      svg("line", { x1: sx, y1: sy, x2: sx + dx * 44, y2: sy + dy * 44, class: "sun-ray", "marker-end": "url(#arrow)" }),
      svg("circle", { cx: sx, cy: sy, r: 13, class: "sun-disc" }, svg("title", {}, "the sun: shadows fall the way the arrow points"))));
    root.prepend(svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 5, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse" },
      svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#e8a400" }))));
    const actionsByCell = new Map();
    if (frame.kind === "actions") {
      frame.actions.forEach((text, p) => {
        if (!text) return;
        const a = parseAction(text);
        if (["GROW", "COMPLETE"].includes(a.verb)) actionsByCell.set(a.args[0], p);
        if (a.verb === "SEED") actionsByCell.set(a.args[1], p);
      });
    }
    cells.forEach((_, i) => {
      const [cx, cy] = centre(i);
      const rich = frame.richness[i];
      const g = svg("g", { class: "cell", "data-cell": i },
        svg("title", {}, "cell " + i + " · " + RICH_NAME[rich] + (shadow.get(i) ? " · shadow " + shadow.get(i) : "")),
        svg("polygon", { points: hexPoints(cx, cy, R - 1.5), fill: RICH[rich], class: rich === 0 ? "hole" : "" }));
      if (shadow.get(i)) g.append(svg("polygon", { points: hexPoints(cx, cy, R - 1.5), class: "shadow", "fill-opacity": 0.12 + 0.1 * shadow.get(i) }));
      if (actionsByCell.has(i)) g.append(svg("polygon", { points: hexPoints(cx, cy, R - 4), class: "acted", stroke: COLORS[actionsByCell.get(i)] }));
      g.append(svg("text", { x: cx, y: cy + R * 0.62, class: "cell-index" }, i));
      root.append(g);
    });
    if (frame.kind === "actions") {
      frame.actions.forEach((text, p) => {
        const a = parseAction(text);
        if (a.verb !== "SEED" || !(a.args[0] in cells) || !(a.args[1] in cells)) return;
        const [x1, y1] = centre(a.args[0]);
        const [x2, y2] = centre(a.args[1]);
        root.append(svg("line", { x1, y1, x2, y2, class: "seed-throw", stroke: COLORS[p], "marker-end": "url(#arrow)" }));
      });
    }
    for (const tree of frame.trees) {
      const [cx, cy] = centre(tree.cell);
      const spooky = tree.size > 0 && (shadow.get(tree.cell) || 0) >= tree.size;
      const g = svg("g", { class: "tree" + (spooky ? " spooky" : "") + (tree.dormant ? " dormant" : ""), "data-tree": tree.cell },
        svg("title", {}, names[tree.owner] + " · size " + tree.size + (tree.dormant ? " · dormant" : "") + (spooky ? " · in shadow (no sun)" : "")),
        svg("circle", { cx, cy: cy - 3, r: TREE_R[tree.size], fill: COLORS[tree.owner], class: "crown" }));
      if (tree.size > 0) g.append(svg("text", { x: cx, y: cy + 1, class: "tree-size" }, tree.size));
      if (tree.dormant) g.append(svg("text", { x: cx + TREE_R[tree.size] - 1, y: cy - TREE_R[tree.size] - 1, class: "zz" }, "z"));
      root.append(g);
    }
    return root;
  }

  function hud(frame, i) {
    const last = i === frames.length - 1;
    return names.map((name, p) => {
      const faults = frame.deactivated.filter(([q]) => q === p).map(([, why]) => why);
      const illegal = frame.illegal.filter(([q]) => q === p).map(([, why]) => why);
      const everDeactivated = !frame.active[p];
      const completed = frame.completed.filter(([q]) => q === p);
      return el("div", { class: "hud" + (everDeactivated ? " inactive" : ""), style: "border-color:" + COLORS[p] },
        el("div", { class: "hud-name" }, el("i", { class: "dot", style: "background:" + COLORS[p] }), name,
          frame.waiting[p] && frame.active[p] ? el("span", { class: "waiting", title: "waiting for the next day" }, "waiting") : null),
        el("div", { class: "hud-stats" },
          el("span", {}, "☀ ", el("b", { "data-sun": p }, frame.sun[p])),
          el("span", {}, "score ", el("b", { "data-score-player": p }, last ? ui.scoreText(record.outcome.scores[p]) : frame.score[p])),
          frame.kind === "gathering" ? el("span", { class: "muted" }, "+" + frame.gathered[p] + " sun") : null),
        frame.actions[p] ? el("div", { class: "hud-action" }, el("code", {}, frame.actions[p])) : null,
        frame.messages[p] ? el("div", { class: "bubble" }, frame.messages[p]) : null,
        completed.map(([, cell, points]) => el("div", { class: "event" }, "completed cell " + cell + ": +" + points)),
        illegal.map((why) => el("div", { class: "fault" }, "illegal: " + why + " (sleeps until tomorrow)")),
        faults.map((why) => el("div", { class: "fault" }, "deactivated: " + why)),
        everDeactivated && !faults.length ? el("div", { class: "fault" }, "deactivated") : null);
    });
  }

  function draw(i) {
    const frame = frames[i];
    ui.put(stage,
      el("div", { class: "turn-head" },
        el("span", { class: "turn-no" }, "Day " + Math.min(frame.day, 23) + " / 23"),
        el("span", { class: "day " + frame.kind }, PHASE[frame.kind] || frame.kind),
        el("span", { class: "mode" }, "nutrients " + frame.nutrients + " · sun from " + ["W", "SW", "SE", "E", "NE", "NW"][frame.sun_direction] +
          ", shadows fall " + ["E", "NE", "NW", "W", "SW", "SE"][frame.sun_direction])),
      frame.seed_conflict ? el("div", { class: "banner" }, "Seed conflict: both seeded the same cell, both refunded.") : null,
      el("div", { class: "board-wrap" }, board(frame)));
    ui.put(side, el("h3", {}, "Players"), hud(frame, i),
      el("div", { class: "legend" },
        RICH.map((c, r) => el("span", {}, el("i", { class: "swatch", style: "background:" + c }), RICH_NAME[r])),
        el("span", {}, el("i", { class: "swatch shadow-swatch" }), "shadow")));
  }

  const positionOfStep = (k) => {
    for (let i = 0; i < frames.length; i++) if (frames[i].executions > k) return i;
    return null;
  };

  return {
    count: frames.length,
    label: (i) => "Day " + Math.min(frames[i].day, 23) + " · " + (PHASE[frames[i].kind] || frames[i].kind),
    draw,
    steps: stepsOf,
    position: positionOfStep,
  };
});
