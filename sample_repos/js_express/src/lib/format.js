/** Text helpers for admin screens, grouped in one object literal. */
const format = {
  title(text) {
    return String(text).trim();
  },
  banner: (text) => `== ${format.title(text)} ==`,
};

module.exports = { format };
