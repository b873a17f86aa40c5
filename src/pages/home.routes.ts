/** GET `/`: the home page, the same for everyone, rendered once. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { PAGE_ROUTE_SCHEMA } from './form.js';
import { HOME_PATH, homePage } from './home.page.js';
import { sendPage } from './respond.js';
import { SIGNIN_PATH } from './sign-in.routes.js';

export async function homeRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const page = homePage({ issuer: ctx.config.issuer, signInPath: SIGNIN_PATH });
  app.get(HOME_PATH, { schema: PAGE_ROUTE_SCHEMA }, (_request, reply) => sendPage(reply, 200, page));
}
