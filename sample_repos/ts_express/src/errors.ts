/** An error that carries the HTTP status the API should answer with. */
export class HttpError extends Error {
  /**
   * @param status HTTP status code
   * @param message human readable explanation, sent to the client
   */
  constructor(public readonly status: number, message: string) {
    super(message);
    this.name = 'HttpError';
  }
}

/** 404: the requested resource does not exist. */
export class NotFoundError extends HttpError {
  constructor(resource: string, id: number | string) {
    super(404, `${resource} ${id} not found`);
  }
}

/** 400: the request is malformed or breaks a business rule. */
export class ValidationError extends HttpError {
  constructor(message: string) {
    super(400, message);
  }
}
