// [width, height] of the top document's visual viewport (the layout viewport where there is none).
function viewport_size() {
  const v = window.visualViewport;
  return v ? [v.width, v.height] : [innerWidth, innerHeight];
}
