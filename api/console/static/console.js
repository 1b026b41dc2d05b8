// The console's one script (the Content-Security-Policy allows no inline script): copy buttons, and a top-up
// invoice's status, asked every second until it is credited or expires, the balance updated in place.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("button[data-copy]")) {
    button.addEventListener("click", async () => {
      const field = document.getElementById(button.dataset.copy);
      field.select();
      try {
        await navigator.clipboard.writeText(field.value);
      } catch {
        document.execCommand("copy"); // an insecure origin (plain http on another host) has no clipboard API
      }
      button.textContent = "Copied";
    });
  }
  const invoice = document.getElementById("invoice");
  if (invoice && invoice.dataset.status === "pending") watch(invoice);
});

function watch(invoice) {
  const status = document.getElementById("status");
  const balance = document.getElementById("balance");
  const devPay = document.getElementById("dev-pay");
  if (devPay) {
    devPay.addEventListener("submit", async (event) => {
      event.preventDefault(); // pay in the background: the page stays, and the poll below sees the payment
      devPay.querySelector("button").disabled = true;
      await fetch(devPay.action, {method: "POST", body: new URLSearchParams(new FormData(devPay)),
                                  redirect: "manual", credentials: "same-origin"});
    });
  }
  const timer = setInterval(async () => {
    let answer;
    try {
      const response = await fetch(invoice.dataset.statusUrl, {credentials: "same-origin"});
      if (!response.ok) return;
      answer = await response.json();
    } catch {
      return; // asked again in a second
    }
    balance.textContent = answer.balance_sats.toLocaleString("en-US");
    if (answer.status === "credited") {
      status.textContent = `Paid: ${answer.amount_sats.toLocaleString("en-US")} sats credited.`;
      status.className = "status-credited";
      if (devPay) devPay.hidden = true;
      clearInterval(timer);
    } else if (answer.status === "expired") {
      status.textContent = "This invoice expired unpaid.";
      status.className = "status-expired";
      if (devPay) devPay.hidden = true;
      document.getElementById("renew").hidden = false;
      clearInterval(timer);
    }
  }, 1000);
}
