/**
 * Lower-case, dash-separated form of a title: "Le Petit Prince" -> "le-petit-prince".
 * @param {string} title
 * @returns {string}
 */
function slugify(title) {
  return simplify(title)
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/**
 * Shortens text to at most `max` characters, ending with an ellipsis (…).
 * @param {string} text
 * @param {number} max
 */
function truncate(text, max = 80) {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Removes accents and lower-cases. */
function simplify(text) {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

module.exports = { slugify, truncate };
