/** GET `/`: the home page, the same for everyone, rendered once. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { pageRoute } from './form.js';
import { HOME_PATH, homePage } from './home.page.js';
import { sendPage } from './respond.js';
import { SIGNIN_PATH } from './sign-in.routes.js';

export async function homeRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const page = homePage({ issuer: ctx.config.issuer, signInPath: SIGNIN_PATH });
  const route = pageRoute({
    summary: 'Home page',
    page: 'HTML page linking to sign-in, Connected apps, /auth.md, /openapi.json and the metadata documents',
  });
  app.get(HOME_PATH, route, (_request, reply) => sendPage(reply, 200, page));
}
