// "Anterior / Página n de m · 21 cobros / Siguiente" under a paged list.
import { plural } from "../format.ts";
export interface PagerProps {
  page: number;
  pageSize: number;
  total: number;
  /** What the list counts: one and many (`["cobro", "cobros"]`). */
  items: readonly [one: string, many: string];
  onPage: (page: number) => void;
}

export function Pager({ page, pageSize, total, items, onPage }: PagerProps) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return (
    <nav class="pager" aria-label="Páginas">
      <button type="button" class="button-secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Anterior
      </button>
      <span>
        Página {page} de {pages} · {plural(total, items[0], items[1])}
      </span>
      <button type="button" class="button-secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Siguiente
      </button>
    </nav>
  );
}
