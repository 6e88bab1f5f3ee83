/** Anything the repositories store: it has a numeric id (0 = not stored yet). */
export interface Entity {
  id: number;
}

/** A registered customer. */
export interface User extends Entity {
  name: string;
  email: string;
  createdAt: Date;
}

/** Lifecycle of an order. */
export enum OrderStatus {
  Pending = 'pending',
  Paid = 'paid',
  Cancelled = 'cancelled',
}

/** One line of an order; prices are in cents. */
export interface OrderItem {
  sku: string;
  quantity: number;
  unitPrice: number;
}

/** An order placed by a user. */
export interface Order extends Entity {
  userId: number;
  items: OrderItem[];
  status: OrderStatus;
}
