// A table in its card that scrolls sideways on a narrow screen (a phone), with a cue when it does: shadows
// at the edges that hide more columns, and a line that says the table slides. The card can take the
// keyboard's focus, so that its arrows scroll it too.
import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";

/** `label`: what the table lists, in lower case after "Tabla de" (`cobros`, `pagos recibidos`). */
export function TableScroll({ label, children }: { label: string; children: ComponentChildren }) {
  const card = useRef<HTMLDivElement>(null);
  const [overflowing, setOverflowing] = useState(false);
  useLayoutEffect(() => {
    const element = card.current;
    if (!element) return;
    const measure = () => setOverflowing(element.scrollWidth > element.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return (
    <>
      {overflowing && (
        <p class="scroll-hint" aria-hidden="true">
          Deslizá la tabla hacia los costados para ver todas las columnas →
        </p>
      )}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling table must take focus to be scrolled with the keyboard */}
      {/* biome-ignore lint/a11y/useSemanticElements: a group names the scrolling card without adding a landmark (a fieldset is for form controls) */}
      <div ref={card} class={overflowing ? "table-wrap table-wrap-overflowing" : "table-wrap"} role="group" aria-label={`Tabla de ${label}`} tabIndex={0}>
        {children}
      </div>
    </>
  );
}
