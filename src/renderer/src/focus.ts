/** Focus follows the selection into the timeline list (its focus ring is on the selected row). No imports: the store's slices use it too. */
export function focusTimeline(): void {
  const el = document.getElementById('timeline-rows');
  // Still loading: the timeline takes focus when its rows arrive.
  focusPending = !el;
  el?.focus({ preventScroll: true });
}
let focusPending = false;
export function takeTimelineFocus(): boolean {
  const p = focusPending;
  focusPending = false;
  return p;
}

