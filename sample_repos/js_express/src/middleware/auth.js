/** Key clients must send in the x-api-key header for write requests. */
const API_KEY = process.env.API_KEY || 'dev-key';

/** Rejects a request without the right x-api-key header with 401. */
function requireApiKey(req, res, next) {
  if (req.get('x-api-key') !== API_KEY) {
    res.status(401).json({ error: 'invalid API key' });
    return;
  }
  next();
}

/** Logs method and URL of every request. */
function logRequests(req, res, next) {
  console.log(`${new Date().toISOString()} ${req.method} ${req.originalUrl}`);
  next();
}

module.exports = { requireApiKey, logRequests };
