// MongoDB is ready when it answers this through the adapter, with the service's own credentials
// (not when its port opens: the official images restart the server after their first-run setup).
export const READINESS_STATEMENT = '{"ping": 1}';
