import type { SpfNode } from "../../../src/lib/dns/spf-tree";

/** The include tree with the DNS lookups each branch costs. */
export function SpfTree({ node, depth = 0 }: { node: SpfNode; depth?: number }) {
  const broken = !node.record;
  return (
    <li className={depth ? "ml-4 border-l border-base-300 pl-3" : ""}>
      <div className="flex flex-wrap items-baseline gap-x-2 font-mono text-xs break-all">
        <span>{depth ? node.term : node.domain}</span>
        <span className="opacity-60">
          {node.totalLookups} lookup{node.totalLookups === 1 ? "" : "s"}
        </span>
        {broken && depth ? <span className="text-error">{node.lookupStatus === "ok" ? "no SPF record" : "not found"}</span> : null}
      </div>
      {node.children.length ? (
        <ul className="mt-1 space-y-1">
          {node.children.map((c, i) => (
            <SpfTree key={`${c.domain}-${i}`} node={c} depth={depth + 1} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}
