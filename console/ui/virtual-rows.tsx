/**
 * A list of many rows of one height, of which only those in view are in the page: 10 000 journal entries scroll
 * like 30. While the list is scrolled down, the row at the top of the view stays where it is when rows are added
 * above it (the view follows it by its key), so that a stream never moves what is being read; at the very top,
 * new rows come into view.
 */
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

/** Rows rendered beyond the view on each side, so that a quick scroll shows no gap. */
const overscan = 10;

export function VirtualRows<Row>(props: {
  rows: readonly Row[];
  rowHeight: number;
  /** Height of the scrolling area, in pixels. */
  height: number;
  keyOf: (row: Row) => string;
  render: (row: Row, index: number) => ComponentChildren;
  label: string;
}) {
  const { rows, rowHeight, keyOf } = props;
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  /** The row at the top of the view, and how far it is scrolled past. */
  const anchor = useRef<{ key: string; offset: number } | undefined>(undefined);
  const remember = (top: number) => {
    const row = rows[Math.floor(top / rowHeight)];
    anchor.current = top > 0 && row !== undefined ? { key: keyOf(row), offset: top % rowHeight } : undefined;
  };
  useLayoutEffect(() => {
    const element = box.current;
    const held = anchor.current;
    if (!element || !held) return;
    const index = rows.findIndex((row) => keyOf(row) === held.key);
    if (index < 0) return;
    const top = index * rowHeight + held.offset;
    if (element.scrollTop !== top) {
      element.scrollTop = top;
      setScrollTop(top);
    }
  }, [rows]);
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const shown = rows.slice(first, first + Math.ceil(props.height / rowHeight) + 2 * overscan);
  return (
    <div
      ref={box}
      class="virtual-rows"
      style={{ height: `${props.height}px` }}
      onScroll={(event) => {
        const top = (event.currentTarget as HTMLDivElement).scrollTop;
        remember(top);
        setScrollTop(top);
      }}
      role="list"
      aria-label={props.label}
    >
      <div style={{ height: `${rows.length * rowHeight}px`, position: 'relative' }}>
        {shown.map((row, index) => (
          <div key={keyOf(row)} role="listitem" style={{ position: 'absolute', top: `${(first + index) * rowHeight}px`, left: 0, right: 0, height: `${rowHeight}px` }}>
            {props.render(row, first + index)}
          </div>
        ))}
      </div>
    </div>
  );
}
