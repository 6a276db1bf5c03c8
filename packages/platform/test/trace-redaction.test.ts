import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { REDACTED, RedactingSpanExporter, redactAttributes } from '../src/trace-redaction';

describe('trace redaction', () => {
  it('when a URL attribute has a query or user info, then only the scheme, host and path remain', () => {
    expect(
      redactAttributes({
        'url.full': 'https://owner:pw@hooks.example.com/in?token=s3cret&to=%2B33612345678',
        'http.url': 'https://dash.example.com/messages?q=%2B33612345678',
        'http.target': '/messages?q=Bonjour',
        'url.query': 'q=%2B33612345678',
        'url.path': '/messages',
        'http.status_code': 200,
      }),
    ).toEqual({
      'url.full': `https://${REDACTED}@hooks.example.com/in?${REDACTED}`,
      'http.url': `https://dash.example.com/messages?${REDACTED}`,
      'http.target': `/messages?${REDACTED}`,
      'url.query': REDACTED,
      'url.path': '/messages',
      'http.status_code': 200,
    });
  });

  it('when a path holds a phone number (the inbox of the dashboard, an opt-out of the API), then that segment is redacted and the ids stay', () => {
    expect(
      redactAttributes({
        'http.target': '/inbox/%2B33612345678/reply',
        'url.path': '/inbox/+33 6 12 34 56 78',
        'url.full': 'https://api.example.com/v1/opt-outs/%2B33612345678?x=1',
        'http.url': 'https://dash.example.com/inbox/0612345678',
      }),
    ).toEqual({
      'http.target': `/inbox/${REDACTED}/reply`,
      'url.path': `/inbox/${REDACTED}`,
      'url.full': `https://api.example.com/v1/opt-outs/${REDACTED}?${REDACTED}`,
      'http.url': `https://dash.example.com/inbox/${REDACTED}`,
    });
    const ids = {
      'http.target': '/messages/msg_01HZX3K9P2Q7',
      'url.path': '/phones/device_8a1b2c/limits',
      'url.full': 'https://hub:8444/v1/agent',
    };
    expect(redactAttributes(ids)).toBe(ids);
  });

  it('when nothing needs redacting, then the attributes are the same object', () => {
    const attributes = { 'url.full': 'https://api.example.com/v1/sms/send', 'http.target': '/v1/sms/send' };
    expect(redactAttributes(attributes)).toBe(attributes);
  });

  it('when spans are exported, then the exporter sees redacted attributes and the spans keep their context', async () => {
    const memory = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new RedactingSpanExporter(memory))] });
    const span = provider.getTracer('test').startSpan('GET /messages', { attributes: { 'http.target': '/messages?q=%2B33612345678' } });
    const traceId = span.spanContext().traceId;
    span.end();
    await provider.forceFlush();
    const [exported] = memory.getFinishedSpans();
    expect(exported!.attributes['http.target']).toBe(`/messages?${REDACTED}`);
    expect(exported!.spanContext().traceId).toBe(traceId);
    expect(exported!.name).toBe('GET /messages');
    await provider.shutdown();
  });
});
