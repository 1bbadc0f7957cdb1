// set_input_files on a selector: `this` is the element it designates. Answers {el, n}: the file
// input it means (itself, the control of a <label>, or the first file input inside it, open
// shadow roots included), how many such inputs there are (n > 1 is ambiguous) and the first
// 5 of them (the ambiguity error lists them).
function find_file_input() {
  const isFile = (e) => e && e.localName === 'input' && (e.type || '').toLowerCase() === 'file';
  if (isFile(this)) return {el: this, n: 1};
  if (this.localName === 'label' && this.control) {
    if (isFile(this.control)) return {el: this.control, n: 1};
  }
  const found = [];
  const walk = (root) => {
    for (const e of root.querySelectorAll('*')) {
      if (isFile(e)) found.push(e);
      if (e.shadowRoot) walk(e.shadowRoot);
    }
  };
  walk(this);
  if (this.shadowRoot) walk(this.shadowRoot);
  return {el: found[0] || null, n: found.length, all: found.slice(0, 5)};
}
