import type { Mapping } from '../../use-cases/campaign-csv';
import {
  discardUpload,
  getCampaign,
  listCampaigns,
  moveCampaign,
  previewUpload,
  sendCampaign,
  storeUpload,
  uploadToMap,
  waitingUploads,
  EXPIRED,
  type CampaignMove,
  type KeptUpload,
} from '../../use-cases/campaigns.use-case';
import { campaignsView, campaignView, mappingView, previewView, uploadView } from '../../views/campaigns.view';
import { problemView } from '../../views/error.view';
import { field, page, type AppDeps, type DashContext, type DashRouter } from '../context';

/** The path whose form carries a whole CSV file: the app reads it as it comes (readUploadForm). */
export const UPLOAD_PATH = '/campaigns/new';

const mappingOf = (ctx: DashContext): Mapping => ({
  phoneColumn: field(ctx, 'phone_column'),
  template: field(ctx, 'text').slice(0, 10_000),
  encrypted: field(ctx, 'encrypted') === 'yes',
});

/** CSV campaigns: the list, the three steps of a new one (upload, mapping, preview and send) and a campaign's page. */
export function campaignRoutes(router: DashRouter, deps: AppDeps): void {
  const { up } = deps;
  const csrfOf = (ctx: DashContext) => ctx.state.session!.csrf;
  const expired = (ctx: DashContext) => {
    ctx.status = 404;
    page(ctx, 'New campaign', 'campaigns', problemView(EXPIRED));
  };
  const mappingPage = (ctx: DashContext, upload: KeptUpload, mapping: Mapping, error?: string) => {
    const view = {
      csrf: csrfOf(ctx),
      uploadId: upload.uploadId,
      headers: upload.headers,
      rows: upload.rows,
      fileName: upload.fileName,
    };
    page(ctx, 'New campaign', 'campaigns', mappingView({ ...view, mapping, error }));
  };

  router.get('/campaigns', async (ctx) => {
    const pageNo = Math.max(1, Math.min(1_000_000, Math.floor(Number(ctx.query.page)) || 1));
    const clientId = ctx.state.session!.clientId;
    const [list, waiting] = await Promise.all([listCampaigns(up, clientId, pageNo), waitingUploads(up, clientId)]);
    page(ctx, 'Campaigns', 'campaigns', campaignsView(list, pageNo, { csrf: csrfOf(ctx), waiting }));
  });

  router.get(UPLOAD_PATH, (ctx) => page(ctx, 'New campaign', 'campaigns', uploadView(csrfOf(ctx), { name: '' })));
  router.post(UPLOAD_PATH, async (ctx) => {
    const name = field(ctx, 'name');
    const fileName = field(ctx, 'file_name').slice(0, 200);
    const stored = await storeUpload(up, ctx.state.session!.clientId, { name, fileName, csv: ctx.state.csv });
    if ('error' in stored) {
      ctx.status = stored.status;
      return page(ctx, 'New campaign', 'campaigns', uploadView(csrfOf(ctx), { name: name.slice(0, 100) }, stored.error));
    }
    ctx.redirect(`/campaigns/new/${stored.uploadId}`);
  });

  router.get('/campaigns/new/:uploadId', async (ctx) => {
    const found = await uploadToMap(up, ctx.state.session!.clientId, ctx.params.uploadId!);
    if (!found) return expired(ctx);
    mappingPage(ctx, found.upload, found.mapping);
  });

  router.post('/campaigns/new/:uploadId/preview', async (ctx) => {
    const mapping = mappingOf(ctx);
    const found = await previewUpload(up, ctx.state.session!.clientId, ctx.params.uploadId!, mapping);
    if (!found) return expired(ctx);
    const { upload, rows } = found;
    if ('error' in rows) {
      ctx.status = 400;
      return mappingPage(ctx, upload, mapping, rows.error);
    }
    page(
      ctx,
      'New campaign',
      'campaigns',
      previewView({ csrf: csrfOf(ctx), uploadId: upload.uploadId, name: upload.name, mapping, preview: rows }),
    );
  });

  router.post('/campaigns/new/:uploadId/send', async (ctx) => {
    const mapping = mappingOf(ctx);
    const sent = await sendCampaign(up, ctx.state.session!.clientId, ctx.params.uploadId!, mapping);
    if (sent.outcome === 'sent') return ctx.redirect(`/campaigns/${sent.campaignId}`);
    if (sent.outcome === 'stopped') {
      ctx.status = 502;
      return page(ctx, `Campaign ${sent.campaign.name}`, 'campaigns', campaignView(sent.campaign, csrfOf(ctx), sent.stopped));
    }
    // Refused before anything was stored: the preview again, with the reason.
    ctx.status = 400;
    if (!sent.again) return page(ctx, 'New campaign', 'campaigns', problemView(sent.error));
    const { upload, rows } = sent.again;
    page(
      ctx,
      'New campaign',
      'campaigns',
      previewView({ csrf: csrfOf(ctx), uploadId: upload.uploadId, name: upload.name, mapping, preview: rows, error: sent.error }),
    );
  });

  router.post('/campaigns/new/:uploadId/discard', async (ctx) => {
    await discardUpload(up, ctx.state.session!.clientId, ctx.params.uploadId!);
    ctx.redirect('/campaigns');
  });

  router.get('/campaigns/:campaignId', async (ctx) => {
    const c = await getCampaign(up, ctx.state.session!.clientId, ctx.params.campaignId!);
    page(ctx, `Campaign ${c.name}`, 'campaigns', campaignView(c, csrfOf(ctx)));
  });

  for (const move of ['pause', 'resume', 'cancel'] as CampaignMove[]) {
    router.post(`/campaigns/:campaignId/${move}`, async (ctx) => {
      const moved = await moveCampaign(up, ctx.state.session!.clientId, ctx.params.campaignId!, move);
      if (moved.moved) return ctx.redirect(`/campaigns/${moved.campaign.campaignId}`);
      ctx.status = 409;
      page(ctx, `Campaign ${moved.campaign.name}`, 'campaigns', campaignView(moved.campaign, csrfOf(ctx), moved.error));
    });
  }
}
