import { encode } from "uqr";

/** A QR code drawn as one SVG path (no inline HTML), black on white with a quiet zone. */
export function QrCode({ text, label, size = 192 }: { text: string; label: string; size?: number }) {
  const { data, size: modules } = encode(text, { ecc: "M", border: 2 });
  let d = "";
  data.forEach((row, y) => row.forEach((dark, x) => dark && (d += `M${x} ${y}h1v1h-1z`)));
  return (
    <svg role="img" aria-label={label} viewBox={`0 0 ${modules} ${modules}`} width={size} height={size} shapeRendering="crispEdges" className="rounded bg-white">
      <rect width={modules} height={modules} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}
