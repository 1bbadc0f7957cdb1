// Calls one helper of actionability.js on `this` (an element handle in the utility world):
// action_helper("check", "click") runs __egoActions.check(this, "click"). Answers
// {__ego_missing: true} when the helpers are not installed in this world yet (a new document or
// world): the driver installs them and calls again.
function action_helper(name, ...args) {
  const A = globalThis.__egoActions;
  if (!A || typeof A[name] !== 'function') return {__ego_missing: true};
  return A[name](this, ...args);
}
