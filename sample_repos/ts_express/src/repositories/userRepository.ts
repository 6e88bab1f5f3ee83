import { ValidationError } from '../errors';
import { User } from '../models';
import { isEmail } from '../utils/validation';
import { BaseRepository } from './baseRepository';

/** Users kept in memory; e-mail addresses are unique (case-insensitive). */
export class UserRepository extends BaseRepository<User> {
  /** The user registered with this e-mail address, if any. */
  findByEmail(email: string): User | undefined {
    const wanted = email.toLowerCase();
    return this.findAll().find((user) => user.email.toLowerCase() === wanted);
  }

  /** A user needs a name and a well-formed e-mail address. */
  protected validate(user: User): void {
    if (!user.name.trim()) {
      throw new ValidationError('name must not be empty');
    }
    if (!isEmail(user.email)) {
      throw new ValidationError(`invalid e-mail address: ${user.email}`);
    }
  }
}
