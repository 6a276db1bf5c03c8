import { auditCsv, auditEvents, auditFilter, auditPage } from '../../use-cases/audit.use-case';
import { auditView } from '../../views/audit.view';
import { page, type AppDeps, type DashRouter } from '../context';

/** The audit log of the account: the page (filters, pages) and its CSV export. */
export function auditRoutes(router: DashRouter, deps: AppDeps): void {
  router.get('/audit', async (ctx) => {
    const filter = auditFilter(ctx.query);
    const { events, older } = await auditPage(deps.up, ctx.state.session!.clientId, filter);
    page(ctx, 'Audit log', 'audit', auditView(events, filter, older));
  });

  router.get('/audit.csv', async (ctx) => {
    const events = await auditEvents(deps.up, ctx.state.session!.clientId, auditFilter(ctx.query));
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', 'attachment; filename="audit-log.csv"');
    ctx.body = auditCsv(events);
  });
}
