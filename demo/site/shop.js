// A tiny client-side shop: products, search results, product pages and a cart in localStorage.
const PRODUCTS = [
  {id: "k1", name: "Glass Kettle 1.5 L", price: 39.9, kind: "kettle"},
  {id: "k2", name: "Steel Kettle 1.7 L", price: 29.5, kind: "kettle"},
  {id: "k3", name: "Travel Kettle 0.5 L", price: 19.99, kind: "kettle"},
  {id: "t1", name: "Toaster Duo", price: 24.0, kind: "toaster"},
  {id: "m1", name: "Milk Frother", price: 15.5, kind: "frother"},
];
const cart = () => JSON.parse(localStorage.getItem("cart") || "[]");
const count = document.getElementById("count");
if (count) count.textContent = String(cart().length);
const params = new URLSearchParams(location.search);
const results = document.getElementById("results");
if (results) {
  const q = (params.get("q") || "").trim().toLowerCase();
  document.getElementById("query").textContent = q;
  const found = PRODUCTS.filter(p => p.name.toLowerCase().includes(q) || p.kind === q);
  for (const p of found) {
    const row = document.createElement("tr");
    row.innerHTML = `<td><a href="/product.html?id=${p.id}">${p.name}</a></td><td class="price">€${p.price.toFixed(2)}</td>`;
    results.appendChild(row);
  }
  document.getElementById("summary").textContent = `${found.length} results`;
}
const product = document.getElementById("product");
if (product) {
  const p = PRODUCTS.find(x => x.id === params.get("id")) || PRODUCTS[0];
  document.title = `${p.name} — Kettle & Co.`;
  product.querySelector("h1").textContent = p.name;
  product.querySelector(".price").textContent = `€${p.price.toFixed(2)}`;
  document.getElementById("add").addEventListener("click", () => {
    const items = cart(); items.push(p.id); localStorage.setItem("cart", JSON.stringify(items));
    document.getElementById("status").textContent = `Added ${p.name} to the cart`;
    if (count) count.textContent = String(items.length);
  });
}
const list = document.getElementById("cart");
if (list) {
  for (const id of cart()) {
    const p = PRODUCTS.find(x => x.id === id);
    const li = document.createElement("li"); li.textContent = `${p.name} — €${p.price.toFixed(2)}`; list.appendChild(li);
  }
}
