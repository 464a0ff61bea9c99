// The cvcclock transport panel: a view of the binding's state tree. Controls send one
// message each over the WebSocket; the server writes the control key and the host's next
// drive() applies it. Everything shown comes from the telemetry the server pushes.
"use strict";
(() => {
  const token = new URLSearchParams(location.search).get("token") || "";
  const $ = (id) => document.getElementById(id);
  const WINDOW = 10;                       // seconds of history in the plot
  const state = {                          // read by the browser tests too
    hello: null, last: null, updates: 0, times: [], history: [], sent: 0, refusedSeen: 0,
  };
  window.cvcclockPanel = state;
  let ws = null;
  let scrubbing = false;
  let drawing = false;   // a plot redraw is pending: one per update at most, none when idle

  // -- the connection ------------------------------------------------------------------
  function connect() {
    const status = $("status");
    ws = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
    ws.onopen = () => { status.textContent = "connected"; status.dataset.state = "live"; };
    ws.onclose = () => {
      status.textContent = "disconnected"; status.dataset.state = "closed";
      setTimeout(connect, 2000);
    };
    ws.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "hello") hello(message);
      else if (message.type === "telemetry") telemetry(message);
      else if (message.type === "refused") showRefused(message.refused, message.reason);
    };
  }
  function send(message) {
    if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(message)); state.sent++; }
  }

  // -- what the server says ------------------------------------------------------------
  function hello(message) {
    state.hello = message;
    const lanes = new Set(message.lanes);
    $("play").disabled = !lanes.has("paused");
    $("step").disabled = !lanes.has("step");
    $("speed-slider").disabled = $("speed-exact").disabled = !lanes.has("speed");
    $("mode").disabled = !lanes.has("mode");
    $("lockstep-steps").disabled = !lanes.has("lockstep_steps");
    $("lockstep-steps").max = message.limits.lockstep_steps;
    $("r-period").textContent = message.period === 1 ? "1 quantum" : `${message.period} quanta`;
    const recording = message.recording;
    $("scrub").hidden = !recording;
    if (recording) {
      const slider = $("scrub-slider");
      slider.min = recording.start; slider.max = recording.end;
      $("scrub-range").textContent = `ticks ${recording.start}-${recording.end}`;
    }
  }

  function telemetry(t) {
    const prev = state.last;
    state.last = t; state.updates++;
    const now = performance.now();
    state.times.push(now);
    while (state.times.length && now - state.times[0] > 1000) state.times.shift();
    $("r-tick").textContent = t.tick;
    $("r-t").textContent = Number(t.t).toFixed(3);
    $("r-mode").textContent = t.mode;
    $("r-scale").textContent = `${fmt(t.scale)}x`;
    $("r-realized").textContent = `${fmt(t.realized)}x`;
    $("r-dropped").textContent = t.dropped;
    $("r-owed").textContent = t.owed;
    $("r-rate").textContent = state.times.length;
    showRefused(t.refused, t.last_refusal);
    syncControls(t.controls);
    if (prev && t.frame > prev.frame && t.tick >= prev.tick) {
      const frames = t.frame - prev.frame;
      state.history.push({ wall: t.wall, asked: t.mode === "paused" ? 0 : t.scale,
                           realized: t.realized, run: (t.tick - prev.tick) / frames,
                           dropped: Math.max(0, t.dropped - prev.dropped) / frames });
    }   // no frame between two updates: the driver was between frames, nothing to plot
    while (state.history.length && t.wall - state.history[0].wall > WINDOW) state.history.shift();
    if (state.hello && state.hello.recording) drawScrub(t);
    if (!drawing) { drawing = true; requestAnimationFrame(drawPlot); }
  }

  function fmt(x) {
    if (x === null || x === undefined) return "-";
    return Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(3).replace(/\.?0+$/, "") || "0";
  }

  function showRefused(count, reason) {
    $("r-refused").textContent = count;
    if (reason) $("r-last-refusal").textContent = `last refused: ${reason}`;
  }

  // What this page asked for last, until the telemetry has had time to show it: two key
  // presses quicker than an update compound (Down, Down: a quarter) instead of repeating.
  const asked = {};
  function ask(name, value) { asked[name] = { value, at: performance.now() }; return value; }
  function recent(name) {
    const a = asked[name];
    return a && performance.now() - a.at < 500 ? a : null;
  }
  function paused() {
    if (recent("paused")) return recent("paused").value;
    const c = state.last && state.last.controls;
    return !!(c && c.paused);
  }

  function syncControls(c) {
    if (!c) return;
    $("play").textContent = c.paused ? "Play" : "Pause";
    const active = document.activeElement;
    if (typeof c.speed === "number" && c.speed > 0) {
      if (active !== $("speed-slider")) $("speed-slider").value = Math.log2(c.speed);
      if (active !== $("speed-exact")) $("speed-exact").value = +c.speed.toPrecision(6);
    }
    if (typeof c.mode === "string" && active !== $("mode")) {
      $("mode").value = c.mode === "paused" ? $("mode").value : c.mode;
    }
    if (Number.isInteger(c.lockstep_steps) && active !== $("lockstep-steps")) {
      $("lockstep-steps").value = c.lockstep_steps;
    }
  }

  // -- the controls --------------------------------------------------------------------
  const limits = () => (state.hello ? state.hello.limits.speed : [1 / 16, 16]);
  const clampSpeed = (x) => Math.min(limits()[1], Math.max(limits()[0], x));
  function setSpeed(x) {
    if (!Number.isFinite(x)) return;
    send({ op: "speed", value: ask("speed", clampSpeed(x)) });
  }
  function currentSpeed() {
    if (recent("speed")) return recent("speed").value;
    const c = state.last && state.last.controls;
    return c && typeof c.speed === "number" && c.speed > 0 ? c.speed : 1;
  }
  function togglePause() { send({ op: "paused", value: ask("paused", !paused()) }); }
  function step() { send({ op: "step", count: 1 }); }

  $("play").addEventListener("click", (e) => { togglePause(); e.currentTarget.blur(); });
  $("step").addEventListener("click", (e) => { step(); e.currentTarget.blur(); });
  $("speed-slider").addEventListener("input", (e) => {
    const x = 2 ** Number(e.target.value);
    $("speed-exact").value = +x.toPrecision(4);
    throttled("speed", () => setSpeed(x));
  });
  $("speed-slider").addEventListener("change", (e) => {
    setSpeed(2 ** Number(e.target.value)); e.target.blur();
  });
  $("speed-exact").addEventListener("change", (e) => setSpeed(Number(e.target.value)));
  $("mode").addEventListener("change", (e) => { send({ op: "mode", value: e.target.value }); });
  $("lockstep-steps").addEventListener("change", (e) => {
    const n = Number(e.target.value);
    if (Number.isInteger(n) && n >= 1) send({ op: "lockstep_steps", value: n });
  });

  // The server allows 100 messages a second; a drag sends at most one per 50 ms, and its
  // last value always.
  const pending = {};
  function throttled(name, fn) {
    const slot = pending[name] || (pending[name] = { at: 0, timer: null });
    const wait = 50 - (performance.now() - slot.at);
    clearTimeout(slot.timer);
    if (wait <= 0) { slot.at = performance.now(); fn(); }
    else slot.timer = setTimeout(() => { slot.at = performance.now(); fn(); }, wait);
  }

  const scrub = $("scrub-slider");
  scrub.addEventListener("pointerdown", () => { scrubbing = true; });
  window.addEventListener("pointerup", () => { scrubbing = false; });
  scrub.addEventListener("input", () => {
    throttled("seek", () => send({ op: "seek", tick: Number(scrub.value) }));
  });
  scrub.addEventListener("change", () => {
    send({ op: "seek", tick: Number(scrub.value) }); scrubbing = false; scrub.blur();
  });

  document.addEventListener("keydown", (e) => {
    const typing = e.target instanceof HTMLInputElement && e.target.type !== "range"
      || e.target instanceof HTMLSelectElement;
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === " ") { e.preventDefault(); if (!e.repeat) togglePause(); }
    else if (e.key === ".") { e.preventDefault(); step(); }
    else if (e.key === "ArrowUp") { e.preventDefault(); setSpeed(currentSpeed() * 2); }
    else if (e.key === "ArrowDown") { e.preventDefault(); setSpeed(currentSpeed() / 2); }
  });
  document.addEventListener("keyup", (e) => { if (e.key === " ") e.preventDefault(); });

  // -- drawing -------------------------------------------------------------------------
  function drawScrub(t) {
    const rec = state.hello.recording;
    if (!scrubbing && document.activeElement !== scrub) {
      scrub.value = Math.min(rec.end, Math.max(rec.start, t.tick));
    }
    const canvas = $("marks");
    const width = canvas.clientWidth || 600;
    if (canvas.width !== width) canvas.width = width;
    const g = canvas.getContext("2d");
    const x = (tick) => 8 + (width - 16) * (tick - rec.start) / Math.max(1, rec.end - rec.start);
    g.clearRect(0, 0, width, canvas.height);
    g.fillStyle = "#ffb347";
    for (const [tick] of rec.inputs) g.fillRect(x(tick) - 1, 10, 2, 8);
    g.fillStyle = "#c792ea";
    for (const tick of t.keyframes || []) g.fillRect(x(tick) - 1, 0, 2, 9);
  }

  function drawPlot() {
    const canvas = $("plot");
    const g = canvas.getContext("2d");
    const W = canvas.width, H = canvas.height, top = H * 0.58, pad = 34;
    g.clearRect(0, 0, W, H);
    g.font = "11px system-ui, sans-serif";
    g.strokeStyle = "#2a323c"; g.fillStyle = "#8a94a3"; g.lineWidth = 1;
    const last = state.history.length ? state.history[state.history.length - 1].wall : 0;
    const xs = (wall) => pad + (W - pad - 6) * (1 - (last - wall) / WINDOW);
    // Top: speed on a log scale, 1/16x to 16x (0 is drawn at the bottom edge).
    const ys = (s) => 8 + (top - 26) * (1 - (Math.log2(Math.max(s, 1 / 16)) + 4) / 8);
    for (const s of [1 / 16, 1 / 4, 1, 4, 16]) {
      g.beginPath(); g.moveTo(pad, ys(s)); g.lineTo(W - 6, ys(s)); g.stroke();
      g.fillText(s >= 1 ? `${s}x` : `1/${1 / s}x`, 2, ys(s) + 4);
    }
    line(g, "#4fb3ff", (p) => [xs(p.wall), ys(p.asked)]);
    line(g, "#ffb347", (p) => [xs(p.wall), ys(p.realized)]);
    // Bottom: quanta run and dropped per frame.
    const peak = Math.max(4, ...state.history.map((p) => p.run + p.dropped));
    const yq = (q) => H - 16 - (H - top - 24) * q / peak;
    g.strokeStyle = "#2a323c";
    for (const q of [0, peak / 2, peak]) {
      g.beginPath(); g.moveTo(pad, yq(q)); g.lineTo(W - 6, yq(q)); g.stroke();
      g.fillText(String(+q.toFixed(1)), 2, yq(q) + 4);
    }
    line(g, "#6fdc8c", (p) => [xs(p.wall), yq(p.run)]);
    line(g, "#ff6b6b", (p) => [xs(p.wall), yq(p.dropped)]);
    g.fillText("quanta / frame", pad + 4, top + 10);
    g.fillText("speed", pad + 4, 16);
    g.fillText(`last ${WINDOW} s`, W - 60, H - 3);
    drawing = false;
  }
  function line(g, colour, at) {
    if (state.history.length < 2) return;
    g.strokeStyle = colour; g.lineWidth = 2; g.beginPath();
    state.history.forEach((p, i) => { const [x, y] = at(p); if (i) g.lineTo(x, y); else g.moveTo(x, y); });
    g.stroke(); g.lineWidth = 1; g.strokeStyle = "#2a323c";
  }

  connect();
})();
