import type { SpfNode } from "../../../src/lib/dns/spf-tree";

interface Row {
  node: SpfNode;
  depth: number;
}

function flatten(node: SpfNode, depth = 0, out: Row[] = []): Row[] {
  out.push({ node, depth });
  for (const c of node.children) flatten(c, depth + 1, out);
  return out;
}

/**
 * The include tree with the DNS lookups each branch costs, as an indented list (indent capped
 * so a deep chain stays readable in a narrow card).
 */
export function SpfTree({ root }: { root: SpfNode }) {
  return (
    <ul className="space-y-0.5 font-mono text-xs" aria-label="SPF include tree">
      {flatten(root).map(({ node, depth }, i) => (
        <li key={i} className="flex items-baseline justify-between gap-3" style={{ paddingLeft: `${Math.min(depth, 6) * 0.75}rem` }}>
          <span className="min-w-0 break-all">
            {depth ? <span className="opacity-40">↳ </span> : null}
            {depth ? node.term : node.domain}
            {!node.record && depth ? <span className="text-error"> — {node.lookupStatus === "ok" ? "no SPF record" : "not found"}</span> : null}
          </span>
          <span className="shrink-0 opacity-60">
            {node.totalLookups} lookup{node.totalLookups === 1 ? "" : "s"}
          </span>
        </li>
      ))}
    </ul>
  );
}
