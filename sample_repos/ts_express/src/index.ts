import express, { Express } from 'express';
import helmet from 'helmet';
import userRoutes from './routes/users';
import { orderRouter } from './routes/orders';
import { errorHandler, requestLogger } from './middleware';
import { loadConfig } from './utils/config';
import * as log from './utils/logger';
import { timestamp } from './utils/logger';

/**
 * Builds the Express application: JSON parsing, security headers, request logging,
 * the API routers and the error handler (last, so it sees every error).
 */
export function createApp(): Express {
  const app = express();
  app.use(express.json());
  app.use(helmet());
  app.use(requestLogger);

  const health = express.Router();
  /** Liveness probe for the load balancer. */
  health.get('/live', (_req, res) => {
    res.json({ status: 'ok', time: timestamp() });
  });

  app.use('/health', health);
  app.use('/api/users', userRoutes);
  app.use('/api/orders', orderRouter);
  app.use(errorHandler);
  return app;
}

/** Reads the configuration and starts listening. */
export function start(): void {
  const config = loadConfig();
  const app = createApp();
  app.listen(config.port, () => {
    log.info(`shop API listening on port ${config.port}`);
  });
}

start();
