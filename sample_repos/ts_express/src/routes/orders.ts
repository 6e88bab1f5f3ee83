import { Request, Response, Router } from 'express';
import { orderService } from '../container';
import { OrderController } from '../controllers/orderController';
import { requireJson } from '../middleware';
import { OrderStatus } from '../models';
import { timestamp } from '../utils/logger';

/** Routes under /api/orders (mounted by src/index.ts). */
export const orderRouter = Router();

const orders: OrderController = new OrderController(orderService);

orderRouter.post('/', requireJson, orders.place);
orderRouter.get('/:id', orders.show);
orderRouter.post('/:id/cancel', orders.cancel);
orderRouter.get('/by-user/:userId', orders.listForUser);

/** Lists the order statuses clients can filter by. */
orderRouter.get('/meta/statuses', (_req: Request, res: Response) => {
  res.json({ statuses: Object.values(OrderStatus), generatedAt: timestamp() });
});
