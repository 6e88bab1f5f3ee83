const { Router } = require('express');
const { AuthorsController } = require('../controllers/authorsController');
const { truncate } = require('../lib/slug');

/** Routes under /authors (mounted by src/app.js). */
const router = Router();
const controller = new AuthorsController();

router.get('/', controller.list.bind(controller));
router.get('/:id', controller.show.bind(controller));

/** Echo endpoint used by uptime checks: answers with a shortened message. */
router.get('/meta/ping', (req, res) => {
  res.json({ ok: true, message: truncate(String(req.query.echo || 'pong'), 20) });
});

module.exports = router;
