/** What the engine could not do as asked (a generation's `warnings`), shown to the person in its own words. */
export function Warnings({ warnings }: { warnings: string[] }) {
  if (warnings.length === 0) return null;
  return (
    <div class="notice" role="status">
      <p>The generation has warnings:</p>
      <ul>
        {warnings.map((w) => (
          <li key={w}>{w}</li>
        ))}
      </ul>
    </div>
  );
}
