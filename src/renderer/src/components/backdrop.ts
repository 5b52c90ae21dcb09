import { useRef, type PointerEvent, type MouseEvent } from 'react';

/**
 * A backdrop's props that close its sheet on a press that both begins and ends on the backdrop: a
 * text selection or a button press that starts inside the sheet and ends outside it keeps it open
 * (the browser sends that click to the backdrop, their common ancestor).
 */
export function useBackdropClose(close: () => void): { onPointerDown: (e: PointerEvent) => void; onClick: (e: MouseEvent) => void } {
  const downOnBackdrop = useRef(false);
  return {
    onPointerDown: (e) => {
      downOnBackdrop.current = e.target === e.currentTarget;
    },
    onClick: (e) => {
      const both = downOnBackdrop.current && e.target === e.currentTarget;
      downOnBackdrop.current = false;
      if (both) close();
    },
  };
}
