// A report's totals: one card per figure, side by side (stacked on a phone).
export interface Figure {
  label: string;
  value: string;
  testId?: string;
}

export function Figures({ figures }: { figures: Figure[] }) {
  return (
    <div class="cards">
      {figures.map((figure) => (
        <section class="card" key={figure.label} aria-label={figure.label}>
          <h2>{figure.label}</h2>
          <p class="figure" data-testid={figure.testId}>
            {figure.value}
          </p>
        </section>
      ))}
    </div>
  );
}
