// Owns the one sentence `install-plugin` says when npm fails: npm's real cause, read from what npm
// printed and from its debug log. npm names the last step that failed, which is not always the
// cause: a registry it cannot reach over TLS can surface as ERESOLVE ("Found: …@undefined"), with
// the certificate error only in the log. A network or certificate code wins over npm's summary
// code. Pure text in, text out; the caller reads the log file.

// Codes that say npm could not reach or trust the registry: the cause behind whatever npm summed up.
const NETWORK_CODE =
  /\b(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_GET_ISSUER_CERT(?:_LOCALLY)?|UNABLE_TO_VERIFY_LEAF_SIGNATURE|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID|ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|E401|E403|EPROXY)\b/

const CERT_CODE = /CERT|SELF_SIGNED|TLS/

/** The path npm names in "A complete log of this run can be found in: PATH", or undefined. */
export function npmLogPath(stderr) {
  const m = /complete log of this run can be found in:?\s*(\S+)/i.exec(stderr)
  return m ? m[1] : undefined
}

/** npm's "reason: …" (with the request it was about), as one printable line, or undefined. */
function reasonIn(text) {
  const m = /(?:request to \S+ failed, )?reason: [^\n]*/.exec(text)
  return m ? printable(m[0]).slice(0, 200) : undefined
}

/** Control characters from npm's output never reach the terminal as they are. */
const printable = (text) => text.replace(/[\u0000-\u001f\u007f]/g, "?").trim()

/**
 * One sentence for a failed `npm install` of `what`: npm's real cause (a network or certificate
 * code from its output or log first, else its `code` line, else its exit status), npm's reason when
 * it gave one, what to try for a certificate error, and where npm's log is.
 */
export function npmFailureSentence({ what, stderr = "", log = "", status }) {
  const both = `${stderr}\n${log}`
  const network = NETWORK_CODE.exec(both)?.[1]
  const summary = /npm (?:error|ERR!) code (\S+)/.exec(stderr)?.[1]
  const code = network ?? summary
  const reason = reasonIn(both)
  const cause = code
    ? `${printable(code)}${reason ? ` (${reason})` : ""}`
    : `npm exited with status ${status ?? "unknown"}`
  const hint =
    code && CERT_CODE.test(code)
      ? "; npm does not trust the registry's certificate: set cafile in your npmrc (npm config set cafile FILE) or NODE_EXTRA_CA_CERTS, then run this again"
      : ""
  const logPath = npmLogPath(stderr)
  return `npm could not install ${what}: ${cause}${hint}; the config files were not changed${logPath ? ` (npm's log: ${printable(logPath)})` : ""}`
}
