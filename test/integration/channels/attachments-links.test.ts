import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { aliyunSmsConfigSchema, createAliyunSmsAdapter } from '../../../server/channels/aliyun-sms';
import type { HostedMessageInput } from '../../../server/channels/channel-adapter';
import { createDingTalkAdapter } from '../../../server/channels/dingtalk';
import { createFeishuAdapter } from '../../../server/channels/feishu';
import { createHostedAdapter } from '../../../server/channels/hosted';
import { createPushMeAdapter, pushMeConfigSchema } from '../../../server/channels/pushme';
import { createSlackAdapter } from '../../../server/channels/slack';
import { createWebhookAdapter } from '../../../server/channels/webhook';
import { createWeChatOfficialAdapter } from '../../../server/channels/wechat-official';
import { createWeComAdapter } from '../../../server/channels/wecom';
import { createWeComAppAdapter } from '../../../server/channels/wecom-app';
import { startAliyunSmsPeer, type AliyunSmsPeer } from '../../fixtures/peers/aliyun-sms-peer';
import {
  PDF_BYTES,
  PNG_BYTES,
  startFileHost,
  type FileHost,
} from '../../fixtures/peers/attachment-files';
import { startDingTalkPeer, type DingTalkPeer } from '../../fixtures/peers/dingtalk-peer';
import { startFeishuPeer, type FeishuPeer } from '../../fixtures/peers/feishu-peer';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';
import {
  listenPeer,
  parseJsonObject,
  type ListeningPeer,
  type PeerRequest,
} from '../../fixtures/peers/platform-peer';
import { startPushMePeer, type PushMePeer } from '../../fixtures/peers/pushme-peer';
import { startSlackPeer, type SlackPeer } from '../../fixtures/peers/slack-peer';
import { startWeChatPeer, type WeChatPeer } from '../../fixtures/peers/wechat-peer';
import { startWeComAppPeer, type WeComAppPeer } from '../../fixtures/peers/wecom-app-peer';
import { startWeComPeer, type WeComPeer } from '../../fixtures/peers/wecom-peer';

/*
 * The channels that take a link to a file rather than the file (issue 43 §2): the content ends
 * with Herald's URL for each file, as a Markdown image where the platform's Markdown shows one,
 * as a link otherwise. One peer of each for the whole file; each test reads the newest delivery.
 */
describe('channels that link the files of a message', () => {
  const clock = manualClock();
  const services = adapterRuntime(clock);
  let files: FileHost;
  let slack: SlackPeer;
  let dingtalk: DingTalkPeer;
  let wecom: WeComPeer;
  let feishu: FeishuPeer;
  let wechat: WeChatPeer;
  let wecomApp: WeComAppPeer;
  let sms: AliyunSmsPeer;
  let pushme: PushMePeer;
  let hook: ListeningPeer;
  const hookRequests: PeerRequest[] = [];

  beforeAll(async () => {
    [files, slack, dingtalk, wecom, feishu, wechat, wecomApp, sms, pushme, hook] =
      await Promise.all([
        startFileHost(),
        startSlackPeer({ now: clock.now }),
        startDingTalkPeer({ now: clock.now }),
        startWeComPeer({ now: clock.now }),
        startFeishuPeer({ now: clock.now }),
        startWeChatPeer({ now: clock.now }),
        startWeComAppPeer({ now: clock.now }),
        startAliyunSmsPeer({ now: clock.now }),
        startPushMePeer(),
        listenPeer((req, res) => {
          hookRequests.push(req);
          res.writeHead(200).end('ok');
        }),
      ]);
  });

  afterAll(async () => {
    await Promise.all(
      [files, slack, dingtalk, wecom, feishu, wechat, wecomApp, sms, pushme, hook].map((p) =>
        p?.close(),
      ),
    );
  });

  const chart = () =>
    files.attachment({
      id: 'img1AAAAAAAAAAAAAAAAAAAA',
      filename: 'chart.png',
      mime: 'image/png',
      data: PNG_BYTES,
    });
  const report = () =>
    files.attachment({
      id: 'pdf1AAAAAAAAAAAAAAAAAAAA',
      filename: 'report.pdf',
      mime: 'application/pdf',
      data: PDF_BYTES,
    });
  const png = `(${PNG_BYTES.length} B)`;
  const pdf = `(${PDF_BYTES.length} B)`;
  const last = <T>(list: readonly T[]): T => list[list.length - 1];

  it('Slack: send() turns the files into mrkdwn links (mrkdwn has no images)', async () => {
    const adapter = createSlackAdapter();
    const image = chart();
    await adapter.send(
      adapter.configSchema.parse({ webhookUrl: slack.url }),
      outboundMessage({ contentType: 'markdown', content: 'disk', attachments: [image] }),
      services,
    );
    expect(last(slack.received).text).toBe(`*Disk alert*\ndisk\n\n<${image.url}|chart.png> ${png}`);
  });

  it('DingTalk: send() shows an image as a Markdown image and links the other file', async () => {
    const adapter = createDingTalkAdapter();
    const image = chart();
    const doc = report();
    await adapter.send(
      { webhookUrl: dingtalk.url },
      outboundMessage({ contentType: 'markdown', content: 'disk', attachments: [image, doc] }),
      services,
    );
    expect(last(dingtalk.received).body).toMatchObject({
      msgtype: 'markdown',
      markdown: {
        text: `### Disk alert\n\ndisk\n\n![chart.png](${image.url})\n\n[report.pdf](${doc.url}) ${pdf}`,
      },
    });
  });

  it('DingTalk: send() lists the files as lines of a text message', async () => {
    const adapter = createDingTalkAdapter();
    const image = chart();
    await adapter.send(
      { webhookUrl: dingtalk.url },
      outboundMessage({ attachments: [image] }),
      services,
    );
    expect(last(dingtalk.received).body).toMatchObject({
      text: { content: `Disk alert\nweb-3 at 98%\n\nchart.png ${png}: ${image.url}` },
    });
  });

  it('WeCom: send() links an image in markdown, which has no images in version 1', async () => {
    const adapter = createWeComAdapter();
    const image = chart();
    await adapter.send(
      { webhookUrl: wecom.url },
      outboundMessage({ contentType: 'markdown', content: 'disk', attachments: [image] }),
      services,
    );
    expect(last(wecom.received)).toEqual({
      msgtype: 'markdown',
      markdown: { content: `### Disk alert\n\ndisk\n\n[chart.png](${image.url}) ${png}` },
    });
  });

  it('Feishu: send() links the files in the card (card images need uploaded keys)', async () => {
    const adapter = createFeishuAdapter();
    const image = chart();
    await adapter.send(
      adapter.configSchema.parse({ webhookUrl: feishu.url }),
      outboundMessage({ contentType: 'markdown', content: 'disk', attachments: [image] }),
      services,
    );
    const card = last(feishu.received).body.card as { elements: Array<{ content: string }> };
    expect(card.elements[0].content).toBe(`disk\n\n[chart.png](${image.url}) ${png}`);
  });

  it('WeChat official account: send() ends the template’s content with the links', async () => {
    const adapter = createWeChatOfficialAdapter();
    const doc = report();
    await adapter.send(
      {
        appId: wechat.appId,
        appSecret: wechat.appSecret,
        templateId: wechat.templateId,
        apiBaseUrl: wechat.apiBaseUrl,
      },
      outboundMessage({ recipient: wechat.openId, attachments: [doc] }),
      services,
    );
    expect(last(wechat.received).data).toEqual({
      title: { value: 'Disk alert' },
      content: { value: `web-3 at 98%\n\nreport.pdf ${pdf}: ${doc.url}` },
    });
  });

  it('WeCom app: send() ends the text with the links', async () => {
    const adapter = createWeComAppAdapter();
    const doc = report();
    await adapter.send(
      {
        corpId: wecomApp.corpId,
        agentId: wecomApp.agentId,
        secret: wecomApp.secret,
        apiBaseUrl: wecomApp.apiBaseUrl,
      },
      outboundMessage({ recipient: 'zhangsan', attachments: [doc] }),
      services,
    );
    expect(last(wecomApp.received)).toMatchObject({
      msgtype: 'text',
      text: { content: `Disk alert\nweb-3 at 98%\n\nreport.pdf ${pdf}: ${doc.url}` },
    });
  });

  it('Aliyun SMS: send() puts the links into the content parameter', async () => {
    const adapter = createAliyunSmsAdapter();
    const doc = report();
    await adapter.send(
      aliyunSmsConfigSchema.parse({
        accessKeyId: sms.accessKeyId,
        accessKeySecret: sms.accessKeySecret,
        signName: sms.signName,
        templateCode: sms.templateCode,
        endpoint: sms.endpoint,
      }),
      outboundMessage({ recipient: '13800000000', content: 'disk', attachments: [doc] }),
      services,
    );
    expect(JSON.parse(last(sms.received).params.TemplateParam)).toEqual({
      content: `disk\n\nreport.pdf ${pdf}: ${doc.url}`,
    });
  });

  it('PushMe: send() shows an image in HTML content with <img> and links the other file', async () => {
    const adapter = createPushMeAdapter();
    const image = chart();
    const doc = report();
    await adapter.send(
      pushMeConfigSchema.parse({ pushKey: pushme.pushKey, serverUrl: pushme.serverUrl }),
      outboundMessage({ contentType: 'html', content: '<p>disk</p>', attachments: [image, doc] }),
      services,
    );
    expect(last(pushme.received).content).toBe(
      `<p>disk</p>\n\n<p><img src="${image.url}" alt="chart.png"><br><a href="${doc.url}">report.pdf</a> ${pdf}</p>`,
    );
  });

  describe('custom webhook', () => {
    const adapter = createWebhookAdapter();
    const send = async (config: Record<string, unknown>, attachments = [chart(), report()]) => {
      await adapter.send(
        adapter.configSchema.parse({ url: `${hook.origin}/hook`, ...config }),
        outboundMessage({ attachments }),
        services,
      );
      return last(hookRequests);
    };

    it('send() adds an attachments array to the default body and leaves the content alone', async () => {
      const [image, doc] = [chart(), report()];
      const req = await send({}, [image, doc]);
      expect(parseJsonObject(req.body)).toEqual({
        title: 'Disk alert',
        content: 'web-3 at 98%',
        url: '',
        format: 'text',
        attachments: [
          { url: image.url, name: 'chart.png', type: 'image/png', size: PNG_BYTES.length },
          { url: doc.url, name: 'report.pdf', type: 'application/pdf', size: PDF_BYTES.length },
        ],
      });
    });

    it('send() fills the {{attachments}} marker of a body template with the array', async () => {
      const [image] = [chart()];
      const req = await send({ body: '{"text":"{{content}}","files":{{attachments}}}' }, [image]);
      expect(parseJsonObject(req.body)).toEqual({
        text: 'web-3 at 98%',
        files: [{ url: image.url, name: 'chart.png', type: 'image/png', size: PNG_BYTES.length }],
      });
    });

    it('send() ends the content with the links when the template does not carry the files', async () => {
      const doc = report();
      const req = await send({ body: '{"text":"{{content}}"}' }, [doc]);
      expect(parseJsonObject(req.body)).toEqual({
        text: `web-3 at 98%\n\nreport.pdf ${pdf}: ${doc.url}`,
      });
    });

    it('send() sends the default body unchanged when the message has no files', async () => {
      const req = await send({}, []);
      expect(parseJsonObject(req.body)).toEqual({
        title: 'Disk alert',
        content: 'web-3 at 98%',
        url: '',
        format: 'text',
      });
    });
  });

  it('hosted: send() hands the files to the hosted message store with the message', async () => {
    const adapter = createHostedAdapter();
    const stored: HostedMessageInput[] = [];
    const image = chart();
    await adapter.send(
      {},
      outboundMessage({ contentType: 'markdown', content: 'disk', attachments: [image] }),
      {
        ...services,
        storeHostedMessage: (input) => {
          stored.push(input);
          return Promise.resolve({ id: 7 });
        },
      },
    );
    // The reader shows them from the store, so the content stays as sent.
    expect(stored[0].content).toBe('disk');
    expect(stored[0].attachments).toEqual([image]);
  });
});
