/** A screen whose issue has not filled it yet: its heading, so routing can be seen to work. */
export function PagePlaceholder({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <div className="mx-auto max-w-5xl p-6">
      <h1 className="text-3xl font-bold">{title}</h1>
      {children}
    </div>
  );
}
