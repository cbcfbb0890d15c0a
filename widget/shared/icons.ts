import { svg } from 'lit';

/** Small line icons (24×24, currentColor). Always aria-hidden: the text beside them is the name. */
export const bedIcon = svg`<path d="M3 18v-6a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2v6M3 18h18M3 18v2M21 18v2M6 10V7a1 1 0 0 1 1-1h4a1 1 0 0 1 1 1v3M12 10V7a1 1 0 0 1 1-1h4a1 1 0 0 1 1 1v3"/>`;
export const bathIcon = svg`<path d="M4 12h16v3a4 4 0 0 1-4 4H8a4 4 0 0 1-4-4v-3ZM6 12V6a2 2 0 0 1 3.5-1.3M8 19l-1 2M16 19l1 2M9 7l2-1"/>`;
export const carIcon = svg`<path d="M5 16h14M5 16v2M19 16v2M4 16v-4l2-5h12l2 5v4M4 12h16M7.5 14h.01M16.5 14h.01"/>`;
export const chevronLeft = svg`<path d="m15 6-6 6 6 6"/>`;
export const chevronRight = svg`<path d="m9 6 6 6-6 6"/>`;
export const closeIcon = svg`<path d="M6 6l12 12M18 6 6 18"/>`;
export const calendarIcon = svg`<path d="M4 6h16v14H4zM4 10h16M8 3v4M16 3v4"/>`;
export const phoneIcon = svg`<path d="M5 4h4l2 5-2.5 1.5a11 11 0 0 0 5 5L15 13l5 2v4a2 2 0 0 1-2 2A16 16 0 0 1 3 6a2 2 0 0 1 2-2"/>`;
export const mailIcon = svg`<path d="M3 6h18v12H3zM3 7l9 6 9-6"/>`;
export const playIcon = svg`<path d="M8 5v14l11-7z"/>`;
export const expandIcon = svg`<path d="M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5"/>`;
export const shareIcon = svg`<path d="M12 15V3M7 8l5-5 5 5M5 12v8h14v-8"/>`;
