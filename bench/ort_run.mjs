// Times one ONNX model on ONNX Runtime (npm onnxruntime-node, CPU) the way
// `carve run --repeat` times carve: session creation, the first run, then
// K warm-up and N timed runs on the same inputs; prints the same keys.
// Also writes the inputs it used as .npy files so carve gets the same data.
//
//   node bench/ort_run.mjs MODEL.onnx --ort DIR --out DIR [--shape NAME=D,D,...]...
//        [--data NAME=F.f32]... [--repeat N] [--warmup K] [--threads T]
//
// DIR of --ort holds node_modules/onnxruntime-node (bench/ort_compare.sh
// installs it there). Inputs without --data are filled with a fixed-seed
// uniform [-1, 1) sequence. Only float32 inputs are supported.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

function parseArgs(argv) {
  const a = { shape: {}, data: {}, repeat: 20, warmup: 2, threads: 1 };
  for (let i = 0; i < argv.length; ++i) {
    const k = argv[i];
    const v = () => {
      if (i + 1 >= argv.length) throw new Error(`${k} needs a value`);
      return argv[++i];
    };
    if (k === '--ort') a.ort = v();
    else if (k === '--out') a.out = v();
    else if (k === '--shape' || k === '--data') {
      const [name, value] = v().split('=');
      a[k.slice(2)][name] = value;
    } else if (k === '--repeat') a.repeat = Number(v());
    else if (k === '--warmup') a.warmup = Number(v());
    else if (k === '--threads') a.threads = Number(v());
    else if (!a.model) a.model = k;
    else throw new Error(`unexpected argument ${k}`);
  }
  if (!a.model || !a.ort || !a.out) throw new Error('usage: ort_run.mjs MODEL --ort DIR --out DIR ...');
  return a;
}

// NumPy .npy (format 1.0) of a float32 C-order array.
function writeNpy(file, dims, values) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims.join(', ')}${dims.length === 1 ? ',' : ''}), }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'),
    Buffer.from(values.buffer, values.byteOffset, values.byteLength)]));
}

function inputValues(name, dims, a) {
  const count = dims.reduce((x, y) => x * y, 1);
  if (a.data[name]) {
    const buf = fs.readFileSync(a.data[name]);
    if (buf.length !== count * 4) throw new Error(`${a.data[name]}: ${buf.length} bytes, expected ${count * 4}`);
    return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  }
  const out = new Float32Array(count);
  let s = 12345;
  for (let i = 0; i < count; ++i) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = (s / 4294967296) * 2 - 1;
  }
  return out;
}

const now = () => Number(process.hrtime.bigint()) / 1000;  // microseconds

function summary(us) {
  const s = [...us].sort((x, y) => x - y);
  const n = s.length;
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  const p90 = s[Math.max(Math.ceil(0.9 * n), 1) - 1];
  return `min=${s[0].toFixed(1)} median=${median.toFixed(1)} p90=${p90.toFixed(1)}`;
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const require = createRequire(path.join(path.resolve(a.ort), 'package.json'));
  const ort = require('onnxruntime-node');
  const options = {
    intraOpNumThreads: a.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  let t = now();
  const session = await ort.InferenceSession.create(a.model, options);
  const sessionUs = now() - t;
  const feeds = {};
  fs.mkdirSync(a.out, { recursive: true });
  for (const name of session.inputNames) {
    if (!a.shape[name]) throw new Error(`--shape ${name}=... is needed`);
    const dims = a.shape[name].split(',').map(Number);
    const values = inputValues(name, dims, a);
    writeNpy(path.join(a.out, `${name}.npy`), dims, values);
    feeds[name] = new ort.Tensor('float32', values, dims);
  }
  t = now();
  const cpu = process.cpuUsage();  // all threads of the process, user + system
  await session.run(feeds);
  const firstUs = now() - t;
  const firstCpu = process.cpuUsage(cpu);
  const firstCpuUs = firstCpu.user + firstCpu.system;
  for (let i = 0; i < a.warmup; ++i) await session.run(feeds);
  const us = [];
  for (let i = 0; i < a.repeat; ++i) {
    t = now();
    await session.run(feeds);
    us.push(now() - t);
  }
  process.stderr.write(`session_us: ${sessionUs.toFixed(1)}\nfirst_call_us: ${firstUs.toFixed(1)}\n` +
    `first_call_cpu_us: ${firstCpuUs.toFixed(1)}\n` +
    `latency_us: ${summary(us)} (${a.repeat} calls after ${a.warmup} warm-up)\n`);
}

main().catch((e) => {
  process.stderr.write(`ort_run: ${e.message}\n`);
  process.exit(1);
});
