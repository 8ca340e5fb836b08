// The example's start-up: a Firebase app signed in anonymously, one
// roomlease client for the page, and the React tree under its provider.
// The addresses come from the /config.json that roomlease-dev serves beside
// the page (a real app has its firebaseConfig and the API URL instead).
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { initializeApp } from 'firebase/app';
import { connectAuthEmulator, getAuth, signInAnonymously } from 'firebase/auth';
import { createRoomleaseClient } from '@roomlease/client/browser';
import { RoomleaseProvider } from '@roomlease/react';
import { App } from './App.jsx';

async function start() {
  const config = await (await fetch('/config.json', { cache: 'no-store' })).json();
  const app = initializeApp({ apiKey: 'demo-api-key', projectId: config.projectId });
  const auth = getAuth(app);
  connectAuthEmulator(auth, config.authEmulatorUrl, { disableWarnings: true });
  await auth.authStateReady();
  if (!auth.currentUser) await signInAnonymously(auth);
  const client = createRoomleaseClient({
    apiUrl: config.apiUrl,
    auth,
    app,
    // Only because the dev stack runs the Firestore emulator.
    firestoreEmulator: { host: config.firestoreEmulatorHost, port: Number(config.firestoreEmulatorPort) },
  });
  createRoot(document.getElementById('root')).render(
    <StrictMode>
      <RoomleaseProvider client={client}>
        <App />
      </RoomleaseProvider>
    </StrictMode>,
  );
}

start().catch((err) => {
  document.getElementById('root').textContent = `Could not start: ${err.message}`;
});
