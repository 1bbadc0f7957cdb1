// The rows of the open search results page: [{name, price, url}].
return [...document.querySelectorAll("#results tr")].map((row) => {
  const link = row.querySelector("a");
  return {name: link.textContent.trim(), price: row.querySelector(".price").textContent.trim(), url: link.href};
});
