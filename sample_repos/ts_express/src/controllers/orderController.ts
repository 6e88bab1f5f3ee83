import autoBind from 'auto-bind';
import { Request, Response } from 'express';
import { Order } from '../models';
import { NewOrder, OrderService, totalOf } from '../services/orderService';
import { formatMoney } from '../utils/format';
import { parseId } from '../utils/validation';

/** An order as clients see it: with its formatted total. */
export interface OrderView extends Order {
  total: string;
}

/** HTTP adapter for the order endpoints. */
export class OrderController {
  constructor(private readonly service: OrderService) {
    autoBind(this);
  }

  /** Places an order from the JSON body and answers 201. */
  place(req: Request, res: Response): void {
    const order = this.service.place(req.body as NewOrder);
    res.status(201).json(this.present(order));
  }

  /** Returns one order. */
  show(req: Request, res: Response): void {
    res.json(this.present(this.service.get(parseId(req.params.id))));
  }

  /** Cancels an order. */
  cancel(req: Request, res: Response): void {
    res.json(this.present(this.service.cancel(parseId(req.params.id))));
  }

  /** Lists the orders of one user. */
  listForUser(req: Request, res: Response): void {
    const orders = this.service.forUser(parseId(req.params.userId));
    res.json(orders.map((order) => this.present(order)));
  }

  /** Adds the formatted total to an order. */
  private present(order: Order): OrderView {
    return { ...order, total: formatMoney(totalOf(order)) };
  }
}
