/**
 * The browser's side of the installable reader: the service worker's registration, and Web Push
 * subscriptions of this device (docs/reader.md). Every function here is a no-op or an answer of
 * "unsupported" where the browser has no service workers (an old browser, plain http on another
 * machine, the component tests).
 */
import type { Router } from 'vue-router';

import type { PushFilter, PushSubscriptionInfo } from '@contract';

import { pushApi } from '../api/push-api';
import { desktopBridge } from './desktop-bridge';
import { isOpenMessageRequest } from './push-notification';
import { nameUserAgent } from './user-agent';

/** The worker vite-plugin-pwa builds from src/sw.ts, at the root so its scope is the console. */
export const SERVICE_WORKER_URL = '/sw.js';

/**
 * Why this browser cannot take push messages, or 'ready': `insecure` is plain http on an
 * address other than localhost (browsers keep service workers to secure contexts), `denied` is
 * notifications blocked for the site.
 */
export type PushSupport = 'ready' | 'unsupported' | 'insecure' | 'denied' | 'homeScreen';

/**
 * iOS and iPadOS (16.4 and later) give push only to a web app opened from the Home Screen; in a
 * Safari tab PushManager is missing. iPadOS says Macintosh, but a Mac has no touch points.
 */
function appleMobile(): boolean {
  return (
    /\b(iPhone|iPad|iPod)\b/.test(navigator.userAgent) ||
    (/\bMacintosh\b/.test(navigator.userAgent) && navigator.maxTouchPoints > 1)
  );
}

export function pushSupport(): PushSupport {
  if (typeof window === 'undefined') return 'unsupported';
  if (!window.isSecureContext) return 'insecure';
  if (
    !('serviceWorker' in navigator) ||
    !('PushManager' in window) ||
    !('Notification' in window)
  ) {
    return appleMobile() && !window.matchMedia?.('(display-mode: standalone)').matches
      ? 'homeScreen'
      : 'unsupported';
  }
  if (Notification.permission === 'denied') return 'denied';
  return 'ready';
}

/**
 * Registers the service worker in a built console in a browser. Not in the desktop window,
 * which has its own notifications, nor under Vite's dev server, which has no /sw.js.
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || desktopBridge() !== null) return;
  if (typeof navigator === 'undefined' || !('serviceWorker' in navigator)) return;
  navigator.serviceWorker
    .register(SERVICE_WORKER_URL, { scope: '/' })
    .catch((err: unknown) => console.warn('[web-push] service worker not registered:', err));
}

/** A click on a push notification in an open console window opens that message in the reader. */
export function openMessagesFromPushClicks(router: Router): void {
  if (typeof navigator === 'undefined' || !('serviceWorker' in navigator)) return;
  navigator.serviceWorker.addEventListener('message', (event: MessageEvent) => {
    if (!isOpenMessageRequest(event.data)) return;
    const id = event.data.messageId;
    void router.push(id === null ? { name: 'messages' } : { name: 'message', params: { id } });
  });
  // Messages that arrived before the app listened are held until this.
  navigator.serviceWorker.startMessages();
}

/** The name a new device is offered: "Chrome on Linux", as Account → sessions says it. */
export function suggestedDeviceName(): string {
  const { browser, system } = nameUserAgent(navigator.userAgent);
  return [browser, system].filter(Boolean).join(' on ') || 'Browser';
}

/** PushManager.subscribe wants the key as bytes; Herald gives it in base64url. */
export function base64urlToBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function sameBytes(a: ArrayBuffer | null | undefined, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.byteLength) return false;
  const view = new Uint8Array(a);
  return view.every((byte, i) => byte === b[i]);
}

/** The person said no (or had said no before): nothing is subscribed. */
export class PushPermissionError extends Error {
  constructor(readonly permission: NotificationPermission) {
    super(`notifications are ${permission}`);
    this.name = 'PushPermissionError';
  }
}

async function registration(): Promise<ServiceWorkerRegistration> {
  const existing = await navigator.serviceWorker.getRegistration('/');
  if (!existing) await navigator.serviceWorker.register(SERVICE_WORKER_URL, { scope: '/' });
  return navigator.serviceWorker.ready;
}

/**
 * Subscribes this browser and tells Herald: asks for permission (the click that called this is
 * the user gesture browsers want), subscribes with Herald's public key, and sends the
 * subscription with the device's name and filter. A subscription made with another key (Herald's
 * keys were replaced) is dropped and made again, since the push service would refuse Herald's
 * pushes to it.
 */
export async function subscribeThisDevice(
  deviceName: string,
  filter: PushFilter,
): Promise<PushSubscriptionInfo> {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') throw new PushPermissionError(permission);
  const [reg, { publicKey }] = await Promise.all([registration(), pushApi.key()]);
  const key = base64urlToBytes(publicKey);
  let subscription = await reg.pushManager.getSubscription();
  if (subscription && !sameBytes(subscription.options.applicationServerKey, key)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await reg.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: key,
  });
  const json = subscription.toJSON();
  return pushApi.create({
    endpoint: subscription.endpoint,
    keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' },
    deviceName,
    filter,
  });
}

/** Whether this browser has a push manager to ask (permission aside). */
function pushAvailable(): boolean {
  const support = pushSupport();
  return support === 'ready' || support === 'denied';
}

/** This browser's push endpoint, if it is subscribed: the device list marks it. */
export async function thisDeviceEndpoint(): Promise<string | null> {
  if (!pushAvailable()) return null;
  const reg = await navigator.serviceWorker.getRegistration('/');
  const subscription = await reg?.pushManager.getSubscription();
  return subscription?.endpoint ?? null;
}

/** Removes a device from Herald; when it is this browser, its subscription goes too. */
export async function removeDevice(device: PushSubscriptionInfo): Promise<void> {
  await pushApi.remove(device.id);
  if (!pushAvailable()) return;
  const reg = await navigator.serviceWorker.getRegistration('/');
  const subscription = await reg?.pushManager.getSubscription();
  if (subscription?.endpoint === device.endpoint) await subscription.unsubscribe();
}
