/** Counts events per key (an ES5 constructor function with prototype methods). */
function Counter(name) {
  this.name = name;
  this.counts = {};
}

/** Count one event. */
Counter.prototype.hit = function (key) {
  this.counts[key] = this.total(key) + 1;
  return this;
};

Counter.prototype.total = function (key) {
  return this.counts[key] || 0;
};

module.exports = { Counter };
