import autoBind from 'auto-bind';
import { Request, Response } from 'express';
import { UserService } from '../services/userService';
import { parseId } from '../utils/validation';

/**
 * HTTP adapter for the user endpoints. Methods are bound to the instance so that
 * routers can register them directly (`router.get('/', controller.list)`).
 */
export class UserController {
  constructor(private readonly service: UserService) {
    autoBind(this);
  }

  /** Lists users; `?page=` and `?size=` select the page. */
  list(req: Request, res: Response): void {
    const page = Number(req.query.page ?? 1);
    const size = Number(req.query.size ?? 20);
    res.json(this.service.list(page, size));
  }

  /** Returns one user. */
  show(req: Request, res: Response): void {
    res.json(this.service.get(parseId(req.params.id)));
  }

  /** Registers a user from the JSON body and answers 201. */
  create(req: Request, res: Response): void {
    const user = this.service.register(req.body);
    res.status(201).json(user);
  }

  /** Deletes a user and answers 204. */
  remove(req: Request, res: Response): void {
    this.service.remove(parseId(req.params.id));
    res.status(204).end();
  }
}
