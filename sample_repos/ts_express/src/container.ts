import { OrderRepository } from './repositories/orderRepository';
import { UserRepository } from './repositories/userRepository';
import { OrderService } from './services/orderService';
import { UserService } from './services/userService';

/*
 * Composition root: one instance of every repository and service, shared by the
 * routers. Tests can build their own graph of objects instead.
 */

/** The single in-memory user store. */
export const userRepository = new UserRepository();

/** The single in-memory order store. */
export const orderRepository = new OrderRepository();

/** User use cases, backed by the user store. */
export const userService = new UserService(userRepository);

/** Order use cases; looks users up through the generic Repository interface. */
export const orderService = new OrderService(orderRepository, userRepository);
