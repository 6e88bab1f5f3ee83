import { NotFoundError } from '../errors';
import { Order, OrderItem, OrderStatus, User } from '../models';
import { Repository } from '../repositories/baseRepository';
import { OrderRepository } from '../repositories/orderRepository';
import { formatMoney } from '../utils/format';
import * as log from '../utils/logger';

/** What a client sends to place an order. */
export interface NewOrder {
  userId: number;
  items: OrderItem[];
}

/** Use cases around orders. */
export class OrderService {
  /**
   * @param orders the order store
   * @param users any user store; only the generic Repository operations are used
   */
  constructor(
    private readonly orders: OrderRepository,
    private readonly users: Repository<User>,
  ) {}

  /** Places a pending order for an existing user. */
  place(input: NewOrder): Order {
    if (!this.users.findById(input.userId)) {
      throw new NotFoundError('user', input.userId);
    }
    const order = this.orders.save({
      id: 0,
      userId: input.userId,
      items: input.items,
      status: OrderStatus.Pending,
    });
    log.info(`order ${order.id} placed, total ${formatMoney(totalOf(order))}`);
    return order;
  }

  /** The order with this id; throws NotFoundError otherwise. */
  get(id: number): Order {
    const order = this.orders.findById(id);
    if (!order) {
      throw new NotFoundError('order', id);
    }
    return order;
  }

  /** All orders of one user. */
  forUser(userId: number): Order[] {
    return this.orders.findByUser(userId);
  }

  /** The order store behind this service. */
  store(): OrderRepository {
    return this.orders;
  }

  /** Orders of one user, newest first. */
  recentForUser(userId: number): Order[] {
    return this.store().findByUser(userId).slice().reverse();
  }

  /** Cancels an order and returns it. */
  cancel(id: number): Order {
    const order = this.get(id);
    order.status = OrderStatus.Cancelled;
    return this.orders.save(order);
  }
}

/** Sum of quantity times unit price over all items, in cents. */
export function totalOf(order: Order): number {
  return order.items.reduce((sum, item) => sum + item.quantity * item.unitPrice, 0);
}

/** Runs `fn` on every order of a user, with the service that holds them. */
export function eachOrder(
  service: OrderService,
  userId: number,
  fn: (order: Order, owner: OrderService) => void,
): void {
  for (const order of service.forUser(userId)) {
    fn(order, service);
  }
}

/** Cancels every pending order of a user. */
export function cancelPending(service: OrderService, userId: number): void {
  eachOrder(service, userId, (order, owner) => {
    if (order.status === OrderStatus.Pending) {
      owner.cancel(order.id);
    }
  });
}
