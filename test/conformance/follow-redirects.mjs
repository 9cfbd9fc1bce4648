#!/usr/bin/env node
// A "browser" for BROWSER=: loads the URL and follows redirects, as a person who is already signed
// in and consents would. Used where an authorization endpoint redirects at once (the conformance
// suite's, and the test authorization server's).
const response = await fetch(process.argv[2], { redirect: 'follow' }).catch((error) => {
  process.stderr.write(`follow-redirects: ${error.message}\n`);
  process.exit(1);
});
await response.text();
