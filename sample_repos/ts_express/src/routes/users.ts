import { Router } from 'express';
import { userService } from '../container';
import { UserController } from '../controllers/userController';
import { requireJson } from '../middleware';

/*
 * Routes under /api/users (mounted by src/index.ts). Handlers are controller
 * methods; write routes check the content type first.
 */
const router = Router();
const controller = new UserController(userService);

router.get('/', controller.list);
router.get('/:id', controller.show);
router.post('/', requireJson, controller.create);
router.delete('/:id', controller.remove);

export default router;
