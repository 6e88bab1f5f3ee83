import { ValidationError } from '../errors';
import { Order } from '../models';
import { BaseRepository } from './baseRepository';

/** Orders kept in memory. */
export class OrderRepository extends BaseRepository<Order> {
  /** All orders of one user, oldest first. */
  findByUser(userId: number): Order[] {
    return this.findAll().filter((order) => order.userId === userId);
  }

  /** An order needs at least one item, each with a positive quantity. */
  protected validate(order: Order): void {
    if (order.items.length === 0) {
      throw new ValidationError('an order needs at least one item');
    }
    if (order.items.some((item) => item.quantity <= 0)) {
      throw new ValidationError('quantities must be positive');
    }
  }
}
