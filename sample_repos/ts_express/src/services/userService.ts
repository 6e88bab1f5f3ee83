import { NotFoundError, ValidationError } from '../errors';
import { User } from '../models';
import { UserRepository } from '../repositories/userRepository';
import * as log from '../utils/logger';
import { Page, paginate } from '../utils/pagination';
import { isEmail as isValidEmail, requireFields } from '../utils/validation';

/** What a client sends to register. */
export interface NewUser {
  name: string;
  email: string;
}

/** Use cases around users: listing, lookup, registration, removal. */
export class UserService {
  /**
   * @param users the user store (injected, see container.ts)
   */
  constructor(private readonly users: UserRepository) {}

  /** One page of users, in registration order. */
  list(page: number, size: number): Page<User> {
    return paginate(this.users.findAll(), page, size);
  }

  /** The user with this id; throws NotFoundError otherwise. */
  get(id: number): User {
    const user = this.users.findById(id);
    if (!user) {
      throw new NotFoundError('user', id);
    }
    return user;
  }

  /**
   * Registers a new user.
   * @throws ValidationError when a field is missing, the e-mail is malformed or taken
   */
  register(input: NewUser): User {
    const missing = requireFields(input, ['name', 'email']);
    if (missing.length > 0) {
      throw new ValidationError(`missing fields: ${missing.join(', ')}`);
    }
    if (!isValidEmail(input.email)) {
      throw new ValidationError(`invalid e-mail address: ${input.email}`);
    }
    if (this.users.findByEmail(input.email)) {
      throw new ValidationError('e-mail address already registered');
    }
    const user = this.users.save({
      id: 0,
      name: input.name.trim(),
      email: input.email,
      createdAt: new Date(),
    });
    log.info(`registered user ${user.id}`);
    return user;
  }

  /** Deletes a user; throws NotFoundError when there is none. */
  remove(id: number): void {
    this.get(id);
    this.users.remove(id);
  }
}
