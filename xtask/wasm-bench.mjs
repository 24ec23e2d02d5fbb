// Times the explorer's search in wasm (crates/flush-bench-wasm, built by
// `cargo xtask bench` with the worker's profile) in node's V8: each case three
// times after a warm-up, the best and the median rate printed.
import { readFileSync } from 'node:fs';

const [wasmPath, statesArg] = process.argv.slice(2);
const states = Number(statesArg ?? 300000);
const mod = await WebAssembly.compile(readFileSync(wasmPath));
const imports = WebAssembly.Module.imports(mod);
if (imports.length) throw new Error(`the bench module must import nothing: ${JSON.stringify(imports)}`);
// The cases and their labels come from the module (its `CASES`).
const first = (await WebAssembly.instantiate(mod, {})).exports;
const label = (c) => new TextDecoder().decode(new Uint8Array(first.memory.buffer, first.label(c), first.label_len(c)));
for (let c = 0; c < first.cases(); c++) {
  // A fresh instance per run: a wasm memory never shrinks.
  const fresh = async () => (await WebAssembly.instantiate(mod, {})).exports;
  (await fresh()).explore(c, 20000);
  const rates = [];
  let n = 0;
  for (let i = 0; i < 3; i++) {
    const x = await fresh();
    const t0 = performance.now();
    n = x.explore(c, states);
    const ms = performance.now() - t0;
    if (n === 0) throw new Error(`case ${c} did not run`);
    rates.push(n / ms * 1000);
  }
  rates.sort((a, b) => a - b);
  console.log(`wasm (node ${process.version}) explore ${label(c)}: ${n} states, best ${rates[2].toFixed(0)} states/s, median ${rates[1].toFixed(0)} states/s`);
}
