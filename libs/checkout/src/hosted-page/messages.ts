import { Locale } from './locale';

/*
 * Every string of the hosted page, per locale. Placeholders: {merchant}, {amount}, {received},
 * {currency}, {network}, {price}, {n}, {m}, {seconds}, {time}, {fee}, {address}, {reason}.
 * Amounts are passed already formatted with their token ("1.234,5 USDT"). Values are inserted as
 * text, never as markup.
 */
const EN = {
  pageTitle: 'Payment to {merchant}',
  paymentTo: 'Payment to',
  logoAlt: '{merchant} logo',
  amountToSend: 'Amount to send',
  amountStillDue: 'Amount still to send',
  amountTotal: 'Amount',
  tokenOnNetwork: '{currency} on {network}',
  priceDetail: 'Price: {price}',
  receivedOf: 'Received so far: {received} of {amount}',
  instructions: 'Scan the QR code with your wallet app, or copy the address and the exact amount.',
  qrAltPayment: 'QR code to pay {amount} to this address on {network}',
  qrAltAddress: 'QR code of this address on {network}',
  warning:
    'Send only {currency} on the {network} network to this address. Another token, or the same token on another network, cannot be credited and may be lost.',
  addressLabel: 'Address',
  amountLabel: 'Exact amount',
  copyAddress: 'Copy address',
  copyAmount: 'Copy amount',
  copied: 'Copied',
  addressCopied: 'Address copied',
  amountCopied: 'Amount copied',
  copyFailed: 'Copying failed: select the text and copy it',
  statusWaiting: 'Waiting for your payment.',
  statusConfirming: 'Payment seen. Waiting for confirmations.',
  confirmations: '{n} of {m} confirmations',
  statusPartial: 'Partial payment received. Please send the remaining {amount}.',
  statusPaid: 'Payment received. Thank you!',
  statusExpired: 'This payment request has expired. Do not send a payment to this address.',
  expiredHint: 'If you have already sent a payment, it will appear here once it arrives.',
  statusUnderpaid: 'The time to pay ran out after a partial payment of {received} of {amount}.',
  underpaidHint: 'Please contact {merchant} about the rest.',
  redirecting: 'Returning to {merchant} in {seconds} s.',
  continueNow: 'Continue now',
  thankYou: 'You can close this page now.',
  expiresIn: 'Expires in {time}',
  expiresSoon: 'Only {time} left to pay',
  timeUp: 'Time is up',
  cancel: 'Cancel and return to {merchant}',
  transactions: 'Payments received',
  transaction: 'Transaction',
  txPending: 'Confirming: {n} of {m}',
  txConfirmed: 'Confirmed',
  txReverted: 'Failed, not counted',
  noscript:
    'With JavaScript on, this page updates itself. Without it, reload the page to see the latest status.',
  reconnecting: 'Connection lost. Reconnecting…',
  detectionDelayed:
    'Payments on {network} are being detected with a delay. Your payment is safe: it will appear here as soon as it is detected.',
  notFoundTitle: 'Payment link not found',
  notFoundText: 'This payment link does not exist or has been removed.',
  notFoundHint: 'Please check the link, or ask the merchant for a new one.',
  refundHeading: 'Your refund',
  refundText:
    '{merchant} is refunding you {amount} on {network} ({fee} network fee deducted). Enter the address that should receive it.',
  refundAddressLabel: 'Your {currency} address on {network}',
  refundWarning:
    'Check it carefully: the refund is sent once, to this address, on {network}. Do not enter an exchange deposit address that does not accept {currency} on {network}.',
  refundSubmit: 'Send my refund',
  refundSent: 'Thank you. Your refund is on its way to {address}.',
  refundFailed: 'The refund could not be requested: {reason}',
  refundDelay:
    'For your security, the refund is sent {minutes} minutes after you enter the address.',
  refundScheduled: 'Thank you. Your refund will be sent to {address} after {time}.',
};

export type MessageKey = keyof typeof EN;
export type Messages = Record<MessageKey, string>;

const DE: Messages = {
  pageTitle: 'Zahlung an {merchant}',
  paymentTo: 'Zahlung an',
  logoAlt: 'Logo von {merchant}',
  amountToSend: 'Zu sendender Betrag',
  amountStillDue: 'Noch zu sendender Betrag',
  amountTotal: 'Betrag',
  tokenOnNetwork: '{currency} im Netzwerk {network}',
  priceDetail: 'Preis: {price}',
  receivedOf: 'Bisher erhalten: {received} von {amount}',
  instructions:
    'Scannen Sie den QR-Code mit Ihrer Wallet-App oder kopieren Sie die Adresse und den genauen Betrag.',
  qrAltPayment: 'QR-Code, um {amount} an diese Adresse im Netzwerk {network} zu zahlen',
  qrAltAddress: 'QR-Code dieser Adresse im Netzwerk {network}',
  warning:
    'Senden Sie nur {currency} im Netzwerk {network} an diese Adresse. Ein anderer Token oder derselbe Token in einem anderen Netzwerk kann nicht gutgeschrieben werden und geht womöglich verloren.',
  addressLabel: 'Adresse',
  amountLabel: 'Genauer Betrag',
  copyAddress: 'Adresse kopieren',
  copyAmount: 'Betrag kopieren',
  copied: 'Kopiert',
  addressCopied: 'Adresse kopiert',
  amountCopied: 'Betrag kopiert',
  copyFailed: 'Kopieren fehlgeschlagen: Text markieren und kopieren',
  statusWaiting: 'Warten auf Ihre Zahlung.',
  statusConfirming: 'Zahlung erkannt. Warten auf Bestätigungen.',
  confirmations: '{n} von {m} Bestätigungen',
  statusPartial: 'Teilzahlung erhalten. Bitte senden Sie die restlichen {amount}.',
  statusPaid: 'Zahlung erhalten. Vielen Dank!',
  statusExpired:
    'Diese Zahlungsanforderung ist abgelaufen. Senden Sie keine Zahlung an diese Adresse.',
  expiredHint: 'Falls Sie bereits gezahlt haben, erscheint die Zahlung hier, sobald sie eintrifft.',
  statusUnderpaid:
    'Die Zahlungsfrist ist nach einer Teilzahlung von {received} von {amount} abgelaufen.',
  underpaidHint: 'Bitte wenden Sie sich wegen des Restbetrags an {merchant}.',
  redirecting: 'Weiter zu {merchant} in {seconds} s.',
  continueNow: 'Jetzt weiter',
  thankYou: 'Sie können diese Seite jetzt schließen.',
  expiresIn: 'Läuft ab in {time}',
  expiresSoon: 'Nur noch {time} zum Bezahlen',
  timeUp: 'Die Zeit ist abgelaufen',
  cancel: 'Abbrechen und zurück zu {merchant}',
  transactions: 'Eingegangene Zahlungen',
  transaction: 'Transaktion',
  txPending: 'Wird bestätigt: {n} von {m}',
  txConfirmed: 'Bestätigt',
  txReverted: 'Fehlgeschlagen, nicht angerechnet',
  noscript:
    'Mit JavaScript aktualisiert sich diese Seite selbst. Ohne JavaScript laden Sie die Seite neu, um den aktuellen Stand zu sehen.',
  reconnecting: 'Verbindung unterbrochen. Neuer Versuch …',
  detectionDelayed:
    'Zahlungen im Netzwerk {network} werden derzeit verzögert erkannt. Ihre Zahlung ist sicher: Sie erscheint hier, sobald sie erkannt wurde.',
  notFoundTitle: 'Zahlungslink nicht gefunden',
  notFoundText: 'Dieser Zahlungslink existiert nicht oder wurde entfernt.',
  notFoundHint: 'Bitte prüfen Sie den Link oder bitten Sie den Händler um einen neuen.',
  refundHeading: 'Ihre Rückerstattung',
  refundText:
    '{merchant} erstattet Ihnen {amount} im Netzwerk {network} (abzüglich {fee} Netzwerkgebühr). Geben Sie die Adresse ein, die sie erhalten soll.',
  refundAddressLabel: 'Ihre {currency}-Adresse im Netzwerk {network}',
  refundWarning:
    'Prüfen Sie sie genau: Die Rückerstattung wird einmal an diese Adresse im Netzwerk {network} gesendet. Geben Sie keine Einzahlungsadresse einer Börse an, die {currency} im Netzwerk {network} nicht annimmt.',
  refundSubmit: 'Rückerstattung senden',
  refundSent: 'Danke. Ihre Rückerstattung ist unterwegs an {address}.',
  refundFailed: 'Die Rückerstattung konnte nicht angefordert werden: {reason}',
  refundDelay:
    'Zu Ihrer Sicherheit wird die Rückerstattung {minutes} Minuten nach Eingabe der Adresse gesendet.',
  refundScheduled: 'Danke. Ihre Rückerstattung wird nach {time} an {address} gesendet.',
};

const ES: Messages = {
  pageTitle: 'Pago a {merchant}',
  paymentTo: 'Pago a',
  logoAlt: 'Logotipo de {merchant}',
  amountToSend: 'Importe a enviar',
  amountStillDue: 'Importe que falta enviar',
  amountTotal: 'Importe',
  tokenOnNetwork: '{currency} en la red {network}',
  priceDetail: 'Precio: {price}',
  receivedOf: 'Recibido hasta ahora: {received} de {amount}',
  instructions:
    'Escanee el código QR con su aplicación de billetera o copie la dirección y el importe exacto.',
  qrAltPayment: 'Código QR para pagar {amount} a esta dirección en la red {network}',
  qrAltAddress: 'Código QR de esta dirección en la red {network}',
  warning:
    'Envíe solo {currency} en la red {network} a esta dirección. Otro token, o el mismo token en otra red, no se puede abonar y podría perderse.',
  addressLabel: 'Dirección',
  amountLabel: 'Importe exacto',
  copyAddress: 'Copiar dirección',
  copyAmount: 'Copiar importe',
  copied: 'Copiado',
  addressCopied: 'Dirección copiada',
  amountCopied: 'Importe copiado',
  copyFailed: 'No se pudo copiar: seleccione el texto y cópielo',
  statusWaiting: 'Esperando su pago.',
  statusConfirming: 'Pago detectado. Esperando confirmaciones.',
  confirmations: '{n} de {m} confirmaciones',
  statusPartial: 'Pago parcial recibido. Envíe los {amount} restantes.',
  statusPaid: 'Pago recibido. ¡Gracias!',
  statusExpired: 'Esta solicitud de pago ha caducado. No envíe ningún pago a esta dirección.',
  expiredHint: 'Si ya envió un pago, aparecerá aquí en cuanto llegue.',
  statusUnderpaid: 'El plazo de pago terminó tras un pago parcial de {received} de {amount}.',
  underpaidHint: 'Póngase en contacto con {merchant} para el resto.',
  redirecting: 'Volviendo a {merchant} en {seconds} s.',
  continueNow: 'Continuar ahora',
  thankYou: 'Ya puede cerrar esta página.',
  expiresIn: 'Caduca en {time}',
  expiresSoon: 'Solo quedan {time} para pagar',
  timeUp: 'Se acabó el tiempo',
  cancel: 'Cancelar y volver a {merchant}',
  transactions: 'Pagos recibidos',
  transaction: 'Transacción',
  txPending: 'Confirmando: {n} de {m}',
  txConfirmed: 'Confirmado',
  txReverted: 'Fallido, no contabilizado',
  noscript:
    'Con JavaScript activado, esta página se actualiza sola. Sin él, recargue la página para ver el estado actual.',
  reconnecting: 'Conexión perdida. Reconectando…',
  detectionDelayed:
    'Los pagos en la red {network} se están detectando con retraso. Su pago está seguro: aparecerá aquí en cuanto se detecte.',
  notFoundTitle: 'Enlace de pago no encontrado',
  notFoundText: 'Este enlace de pago no existe o ha sido eliminado.',
  notFoundHint: 'Compruebe el enlace o pida uno nuevo al comercio.',
  refundHeading: 'Su reembolso',
  refundText:
    '{merchant} le reembolsa {amount} en {network} (descontada una comisión de red de {fee}). Introduzca la dirección que debe recibirlo.',
  refundAddressLabel: 'Su dirección de {currency} en {network}',
  refundWarning:
    'Revísela con cuidado: el reembolso se envía una sola vez, a esta dirección, en {network}. No introduzca una dirección de depósito de un exchange que no acepte {currency} en {network}.',
  refundSubmit: 'Enviar mi reembolso',
  refundSent: 'Gracias. Su reembolso está en camino a {address}.',
  refundFailed: 'No se pudo solicitar el reembolso: {reason}',
  refundDelay:
    'Por su seguridad, el reembolso se envía {minutes} minutos después de introducir la dirección.',
  refundScheduled: 'Gracias. Su reembolso se enviará a {address} después de las {time}.',
};

// French puts a no-break space before ":" and "!".
const FR: Messages = {
  pageTitle: 'Paiement à {merchant}',
  paymentTo: 'Paiement à',
  logoAlt: 'Logo de {merchant}',
  amountToSend: 'Montant à envoyer',
  amountStillDue: 'Montant restant à envoyer',
  amountTotal: 'Montant',
  tokenOnNetwork: '{currency} sur le réseau {network}',
  priceDetail: 'Prix\u00a0: {price}',
  receivedOf: 'Reçu jusqu’ici\u00a0: {received} sur {amount}',
  instructions:
    'Scannez le code QR avec votre application de portefeuille, ou copiez l’adresse et le montant exact.',
  qrAltPayment: 'Code QR pour payer {amount} à cette adresse sur le réseau {network}',
  qrAltAddress: 'Code QR de cette adresse sur le réseau {network}',
  warning:
    'Envoyez uniquement des {currency} sur le réseau {network} à cette adresse. Un autre jeton, ou le même jeton sur un autre réseau, ne peut pas être crédité et risque d’être perdu.',
  addressLabel: 'Adresse',
  amountLabel: 'Montant exact',
  copyAddress: 'Copier l’adresse',
  copyAmount: 'Copier le montant',
  copied: 'Copié',
  addressCopied: 'Adresse copiée',
  amountCopied: 'Montant copié',
  copyFailed: 'Échec de la copie\u00a0: sélectionnez le texte et copiez-le',
  statusWaiting: 'En attente de votre paiement.',
  statusConfirming: 'Paiement détecté. En attente de confirmations.',
  confirmations: '{n} confirmations sur {m}',
  statusPartial: 'Paiement partiel reçu. Veuillez envoyer les {amount} restants.',
  statusPaid: 'Paiement reçu. Merci\u00a0!',
  statusExpired: 'Cette demande de paiement a expiré. N’envoyez aucun paiement à cette adresse.',
  expiredHint: 'Si vous avez déjà envoyé un paiement, il apparaîtra ici dès son arrivée.',
  statusUnderpaid:
    'Le délai de paiement a expiré après un paiement partiel de {received} sur {amount}.',
  underpaidHint: 'Veuillez contacter {merchant} pour le reste.',
  redirecting: 'Retour vers {merchant} dans {seconds}\u00a0s.',
  continueNow: 'Continuer maintenant',
  thankYou: 'Vous pouvez maintenant fermer cette page.',
  expiresIn: 'Expire dans {time}',
  expiresSoon: 'Plus que {time} pour payer',
  timeUp: 'Le temps est écoulé',
  cancel: 'Annuler et revenir à {merchant}',
  transactions: 'Paiements reçus',
  transaction: 'Transaction',
  txPending: 'Confirmation\u00a0: {n} sur {m}',
  txConfirmed: 'Confirmé',
  txReverted: 'Échec, non comptabilisé',
  noscript:
    'Avec JavaScript, cette page se met à jour toute seule. Sans JavaScript, rechargez la page pour voir l’état actuel.',
  reconnecting: 'Connexion perdue. Reconnexion…',
  detectionDelayed:
    'Les paiements sur le réseau {network} sont détectés avec du retard. Votre paiement est en sécurité\u00a0: il apparaîtra ici dès qu’il sera détecté.',
  notFoundTitle: 'Lien de paiement introuvable',
  notFoundText: 'Ce lien de paiement n’existe pas ou a été supprimé.',
  notFoundHint: 'Vérifiez le lien ou demandez-en un nouveau au marchand.',
  refundHeading: 'Votre remboursement',
  refundText:
    '{merchant} vous rembourse {amount} sur {network} (frais de réseau de {fee} déduits). Saisissez l’adresse qui doit le recevoir.',
  refundAddressLabel: 'Votre adresse {currency} sur {network}',
  refundWarning:
    'Vérifiez-la bien : le remboursement est envoyé une seule fois, à cette adresse, sur {network}. Ne saisissez pas une adresse de dépôt de plateforme d’échange qui n’accepte pas {currency} sur {network}.',
  refundSubmit: 'Envoyer mon remboursement',
  refundSent: 'Merci. Votre remboursement est en route vers {address}.',
  refundFailed: 'Le remboursement n’a pas pu être demandé : {reason}',
  refundDelay:
    'Pour votre sécurité, le remboursement est envoyé {minutes} minutes après la saisie de l’adresse.',
  refundScheduled: 'Merci. Votre remboursement sera envoyé à {address} après {time}.',
};

const PT: Messages = {
  pageTitle: 'Pagamento para {merchant}',
  paymentTo: 'Pagamento para',
  logoAlt: 'Logotipo de {merchant}',
  amountToSend: 'Valor a enviar',
  amountStillDue: 'Valor que falta enviar',
  amountTotal: 'Valor',
  tokenOnNetwork: '{currency} na rede {network}',
  priceDetail: 'Preço: {price}',
  receivedOf: 'Recebido até agora: {received} de {amount}',
  instructions:
    'Leia o código QR com o aplicativo da sua carteira ou copie o endereço e o valor exato.',
  qrAltPayment: 'Código QR para pagar {amount} a este endereço na rede {network}',
  qrAltAddress: 'Código QR deste endereço na rede {network}',
  warning:
    'Envie apenas {currency} na rede {network} para este endereço. Outro token, ou o mesmo token em outra rede, não pode ser creditado e pode ser perdido.',
  addressLabel: 'Endereço',
  amountLabel: 'Valor exato',
  copyAddress: 'Copiar endereço',
  copyAmount: 'Copiar valor',
  copied: 'Copiado',
  addressCopied: 'Endereço copiado',
  amountCopied: 'Valor copiado',
  copyFailed: 'Falha ao copiar: selecione o texto e copie-o',
  statusWaiting: 'Aguardando o seu pagamento.',
  statusConfirming: 'Pagamento detectado. Aguardando confirmações.',
  confirmations: '{n} de {m} confirmações',
  statusPartial: 'Pagamento parcial recebido. Envie os {amount} restantes.',
  statusPaid: 'Pagamento recebido. Obrigado!',
  statusExpired:
    'Esta solicitação de pagamento expirou. Não envie nenhum pagamento para este endereço.',
  expiredHint: 'Se você já enviou um pagamento, ele aparecerá aqui assim que chegar.',
  statusUnderpaid:
    'O prazo de pagamento terminou após um pagamento parcial de {received} de {amount}.',
  underpaidHint: 'Entre em contato com {merchant} sobre o restante.',
  redirecting: 'Voltando para {merchant} em {seconds} s.',
  continueNow: 'Continuar agora',
  thankYou: 'Você já pode fechar esta página.',
  expiresIn: 'Expira em {time}',
  expiresSoon: 'Restam apenas {time} para pagar',
  timeUp: 'O tempo acabou',
  cancel: 'Cancelar e voltar para {merchant}',
  transactions: 'Pagamentos recebidos',
  transaction: 'Transação',
  txPending: 'Confirmando: {n} de {m}',
  txConfirmed: 'Confirmado',
  txReverted: 'Falhou, não contabilizado',
  noscript:
    'Com JavaScript ativado, esta página se atualiza sozinha. Sem ele, recarregue a página para ver o status atual.',
  reconnecting: 'Conexão perdida. Reconectando…',
  detectionDelayed:
    'Os pagamentos na rede {network} estão sendo detectados com atraso. Seu pagamento está seguro: ele aparecerá aqui assim que for detectado.',
  notFoundTitle: 'Link de pagamento não encontrado',
  notFoundText: 'Este link de pagamento não existe ou foi removido.',
  notFoundHint: 'Verifique o link ou peça um novo ao comerciante.',
  refundHeading: 'Seu reembolso',
  refundText:
    '{merchant} está reembolsando {amount} na rede {network} (descontada a taxa de rede de {fee}). Informe o endereço que deve recebê-lo.',
  refundAddressLabel: 'Seu endereço {currency} na rede {network}',
  refundWarning:
    'Confira com atenção: o reembolso é enviado uma única vez, para este endereço, na rede {network}. Não informe um endereço de depósito de corretora que não aceite {currency} na rede {network}.',
  refundSubmit: 'Enviar meu reembolso',
  refundSent: 'Obrigado. Seu reembolso está a caminho de {address}.',
  refundFailed: 'Não foi possível solicitar o reembolso: {reason}',
  refundDelay:
    'Para sua segurança, o reembolso é enviado {minutes} minutos depois que você informar o endereço.',
  refundScheduled: 'Obrigado. Seu reembolso será enviado para {address} depois de {time}.',
};

export const MESSAGES: Readonly<Record<Locale, Messages>> = {
  en: EN,
  de: DE,
  es: ES,
  fr: FR,
  pt: PT,
};

export type MessageParams = Record<string, string | number>;

/**
 * The message with its placeholders filled. A placeholder without a value stays as written, so a
 * missing value is visible rather than silently empty. Values are inserted as they are ("$&" in a
 * merchant name is not a replacement pattern); escaping is the caller's job.
 */
export function translate(locale: Locale, key: MessageKey, params: MessageParams = {}): string {
  return MESSAGES[locale][key].replace(/\{([a-z]+)\}/g, (placeholder, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : placeholder,
  );
}
