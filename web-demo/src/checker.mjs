// The page's side of the worker: requests with ids, progress, and cancellation. A check is
// cancelled through grail's progress callback when the page is cross-origin isolated (a
// SharedArrayBuffer flag the worker reads at each progress event); otherwise, or when the
// worker does not stop within a moment (it reads a history in one go), the worker is
// terminated and started again.

const GRACE_MS = 400;

export class CheckError extends Error {
    constructor(info) {
        super(info.message);
        this.name = 'CheckError';
        Object.assign(this, info);
    }
}

export class Checker {
    /** `onState(state)` is told 'loading', 'ready' (with `version`) or 'failed' (with `error`). */
    constructor(url, onState = () => {}) {
        this.url = url;
        this.onState = onState;
        this.shared = typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated ? new SharedArrayBuffer(4) : null;
        this.flag = this.shared ? new Int32Array(this.shared) : null;
        this.nextId = 1;
        this.pending = new Map();
        this.version = null;
        this.restarts = 0;
        this.cancelledUpTo = 0;
        this.spawn();
    }

    /** How a check can be cancelled: 'progress callback' or 'terminate'. */
    get cancelMode() {
        return this.flag ? 'progress callback' : 'terminate';
    }

    spawn() {
        this.onState('loading');
        this.worker = new Worker(this.url, { type: 'module' });
        this.worker.onmessage = (e) => this.receive(e.data);
        this.worker.onerror = (e) => {
            e.preventDefault?.();
            const error = { message: `the worker failed: ${e.message || 'unknown error'}`, kind: 'internal' };
            this.onState('failed', { error });
            this.failAll(error);
        };
        this.worker.postMessage({ type: 'init', flag: this.shared });
    }

    receive(m) {
        if (m.type === 'ready') {
            this.version = m.version;
            this.onState('ready', { version: m.version });
            return;
        }
        if (m.type === 'load-error') {
            this.onState('failed', { error: m.error });
            this.failAll(m.error);
            return;
        }
        const p = this.pending.get(m.id);
        if (!p) return;
        if (m.type === 'progress') {
            p.onProgress?.(m.event);
            return;
        }
        this.pending.delete(m.id);
        clearTimeout(p.timer);
        if (m.type === 'error') p.reject(new CheckError(m.error));
        else if (m.type === 'result') p.resolve(m);
        else p.resolve(m.value);
    }

    failAll(error) {
        for (const [id, p] of this.pending) {
            clearTimeout(p.timer);
            p.reject(new CheckError(error));
            this.pending.delete(id);
        }
    }

    request(msg, onProgress) {
        const id = this.nextId++;
        const promise = new Promise((resolve, reject) => {
            this.pending.set(id, { resolve, reject, onProgress, msg: { ...msg, id }, timer: null });
        });
        this.worker.postMessage({ ...msg, id });
        return { id, promise };
    }

    /** Check `text` at `levels`; `{id, promise}`, the promise resolving to `{report, info, txns, timings}`. */
    check(text, levels, onProgress) {
        return this.request({ type: 'check', text, levels }, onProgress);
    }

    /** Replay `text` as a stream; `onProgress({stream})` per step; `{id, promise}` of the summary. */
    replay(text, onProgress) {
        return this.request({ type: 'replay', text }, onProgress);
    }

    transactions(check, ids) {
        return this.request({ type: 'transactions', check, ids }).promise;
    }

    /** The report of check `check` as one HTML page (core writes it from the loaded history). */
    html(check, title) {
        return this.request({ type: 'html', check, title }).promise;
    }

    subHistory(check, cycle, levels) {
        return this.request({ type: 'subhistory', check, cycle, levels }).promise;
    }

    /** Cancel request `id` (and any earlier one); its promise rejects with kind 'cancelled'. */
    cancel(id) {
        const p = this.pending.get(id);
        if (!p) return;
        this.cancelledUpTo = Math.max(this.cancelledUpTo, id);
        if (this.flag) {
            Atomics.store(this.flag, 0, id);
            p.timer = setTimeout(() => {
                if (this.pending.has(id)) this.restart();
            }, GRACE_MS);
        } else {
            this.restart();
        }
    }

    /**
     * Terminate the worker (whatever it is doing) and start a fresh one. Cancelled requests
     * reject; later ones are sent again to the new worker.
     */
    restart() {
        this.worker.terminate();
        this.restarts++;
        const again = [];
        for (const [id, p] of this.pending) {
            clearTimeout(p.timer);
            if (id <= this.cancelledUpTo) {
                this.pending.delete(id);
                p.reject(new CheckError({ message: 'the check was cancelled', kind: 'cancelled' }));
            } else {
                again.push(p.msg);
            }
        }
        this.spawn();
        for (const msg of again) this.worker.postMessage(msg);
    }
}
