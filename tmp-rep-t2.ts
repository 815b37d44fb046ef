import { gunzipSync as zg } from "node:zlib";
import { gzipSync, strToU8 } from "fflate";
const xml = "<a>" + "<b>hello world 1.2.3.4</b>".repeat(2500) + "</a>";
const gz = gzipSync(strToU8(xml));
let t = performance.now(); for (let i = 0; i < 200; i++) zg(gz); console.log("node zlib", ((performance.now() - t) / 200).toFixed(3));
t = performance.now(); for (let i = 0; i < 200; i++) Bun.gunzipSync(gz); console.log("Bun.gunzipSync", ((performance.now() - t) / 200).toFixed(3));
