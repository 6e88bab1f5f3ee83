const { createApp } = require('./app');

/** Port to listen on (PORT environment variable, default 3000). */
const PORT = Number(process.env.PORT) || 3000;

createApp().listen(PORT, () => {
  console.log(`library API listening on :${PORT}`);
});
