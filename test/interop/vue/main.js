// The widget bundled into the app (the package's `estate-embed/widget` export) instead of a
// script tag: the elements then cannot find the relay from their script's URL, so each gets a
// `relay` attribute.
import 'estate-embed/widget';
import { createApp } from 'vue';
import App from './App.vue';

createApp(App).mount('#app');
